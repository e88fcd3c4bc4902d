# shellcheck shell=bash
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
#
# Sourced by tools/check-debs-chroot.sh and tools/check-trixie.sh (as
# root): fresh_chroot SUITE BASE ROOT MIRROR debootstraps a minimal SUITE
# into BASE once (kept for the next run), then makes ROOT a fresh copy of
# it with /proc, /dev and /dev/pts mounted (unmounted when the shell
# exits) and the host's resolv.conf, for apt inside it.

fresh_chroot() {
  local suite=$1 base=$2 mirror=$4
  chroot_root=$3
  command -v debootstrap >/dev/null || apt-get install -y -qq debootstrap
  mkdir -p "$(dirname "$base")"
  if [ ! -x "$base/usr/bin/apt-get" ]; then
    rm -rf "$base"
    debootstrap --variant=minbase "$suite" "$base" "$mirror"
  fi
  trap umount_chroot EXIT
  umount_chroot
  rm -rf "$chroot_root"
  cp -a "$base" "$chroot_root"
  mount -t proc proc "$chroot_root/proc"
  mount --bind /dev "$chroot_root/dev"
  mount --bind /dev/pts "$chroot_root/dev/pts"
  cp /etc/resolv.conf "$chroot_root/etc/resolv.conf"
}

umount_chroot() {
  local m
  for m in proc dev/pts dev; do
    mountpoint -q "$chroot_root/$m" && umount -l "$chroot_root/$m"
  done
  return 0
}
