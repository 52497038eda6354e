#!/bin/sh
# Set up Lead Console on a Debian/Ubuntu machine that has only Python 3.11+:
# the system libraries Qt needs, a virtual environment in .venv, and the package itself.
#   sh scripts/bootstrap.sh app    libraries for a real window (X11) + fonts, then the app
#   sh scripts/bootstrap.sh test   offscreen libraries only, then the app and its test tools
# Run it as root or with sudo available; it installs only what is missing.
set -eu
cd "$(dirname "$0")/.."
mode="${1:-app}"
case "$mode" in app|test) ;; *) echo "usage: sh scripts/bootstrap.sh [app|test]" >&2; exit 2;; esac

# What PySide6 needs to run offscreen, plus a font so that text is drawn at all.
pkgs="libglib2.0-0 libgl1 libegl1 libxkbcommon0 libfontconfig1 libdbus-1-3 fonts-dejavu-core"
if [ "$mode" = app ]; then
  # Qt's xcb platform plugin (a real window on X11), and CJK fonts for Korean session files.
  pkgs="$pkgs libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 \
libxcb-randr0 libxcb-render0 libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 \
libxcb-xfixes0 libxcb-xinerama0 libxcb-xkb1 libxkbcommon-x11-0 fonts-noto-cjk"
fi
if [ "$mode" = test ]; then
  # The real-client test runs Claude Code teammates in a private tmux server, signs as a lead
  # does with an openssl key, and fetches the pinned client with npm pack; the fault-injection
  # test puts disk errors and kills into the CLI's system calls with strace.
  pkgs="$pkgs tmux openssl ca-certificates strace"
  command -v npm >/dev/null 2>&1 || pkgs="$pkgs npm"
fi
# Debian's python3 creates no venv without python3-venv (ensurepip).
python3 -c 'import ensurepip, venv' 2>/dev/null || pkgs="$pkgs python3-venv"

missing=""
if command -v dpkg-query >/dev/null 2>&1; then
  for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
  done
fi
if [ -n "$missing" ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "Installing system packages:$missing"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi

# A venv that lacks pip (an earlier attempt without python3-venv) is rebuilt.
if ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
  rm -rf .venv
  python3 -m venv .venv
fi
extra=""
[ "$mode" = test ] && extra="[dev]"
.venv/bin/python -m pip install -q --disable-pip-version-check -e ".$extra"
# The pinned Claude Code client for the real-client test (fetched once, checked, kept in .cache/).
if [ "$mode" = test ]; then
  .venv/bin/python scripts/fetch_claude_code.py
fi
