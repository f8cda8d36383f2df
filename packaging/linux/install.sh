#!/usr/bin/env bash
# Installs the TPOT Bench bundle, desktop entry and icons for the current user (--uninstall removes them).
set -euo pipefail

APP_ID=io.github.tpotbench.TPOTBench
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)

usage() {
    cat <<EOF
Usage: packaging/linux/install.sh --user [--bundle DIR]
       packaging/linux/install.sh --user --uninstall

Copies the one-folder bundle (default: dist/tpotbench, made by 'python packaging/build.py') to
\${XDG_DATA_HOME:-~/.local/share}/tpotbench, links ~/.local/bin/tpotbench to it, and installs the
desktop entry $APP_ID.desktop and its icons (hicolor PNGs + scalable SVG) so launchers show
TPOT Bench. --uninstall removes exactly those files again.
EOF
}

fail() {
    echo "install.sh: $*" >&2
    exit 1
}

mode=install
user=0
bundle="$ROOT/dist/tpotbench"
while [ $# -gt 0 ]; do
    case "$1" in
        --user) user=1 ;;
        --uninstall) mode=uninstall ;;
        --bundle)
            [ $# -ge 2 ] || { echo "install.sh: --bundle needs a folder (see --help)" >&2; exit 2; }
            bundle=$2
            shift
            ;;
        --bundle=*) bundle=${1#*=} ;;
        -h | --help) usage; exit 0 ;;
        *) echo "install.sh: unknown option '$1' (see 'install.sh --help')" >&2; exit 2 ;;
    esac
    shift
done
if [ "$user" != 1 ]; then
    echo "install.sh: only per-user installs are supported; run it with --user" >&2
    exit 2
fi
[ -n "${HOME:-}" ] || fail "HOME is not set; cannot find your local share folder"

data=${XDG_DATA_HOME:-$HOME/.local/share}
app_dir=$data/tpotbench
marker=.installed-by-tpotbench
bin_link=$HOME/.local/bin/tpotbench
desktop=$data/applications/$APP_ID.desktop
icons=$data/icons/hicolor
icon_src=$ROOT/resources/icons/app

removed=0
remove() {  # remove one path we own, saying so
    if [ -e "$1" ] || [ -L "$1" ]; then
        rm -rf -- "$1"
        echo "removed $1"
        removed=$((removed + 1))
    fi
}

# Refuse to replace or delete an app folder that this script did not create.
check_app_dir_is_ours() {
    if [ -e "$app_dir" ] && [ ! -e "$app_dir/$marker" ]; then
        fail "$app_dir exists but was not installed by this script; move it away and rerun"
    fi
}

if [ "$mode" = uninstall ]; then
    check_app_dir_is_ours
    remove "$desktop"
    for png in "$icons"/*/apps/"$APP_ID".png "$icons"/scalable/apps/"$APP_ID".svg; do
        remove "$png"
    done
    if [ -L "$bin_link" ] && [ "$(readlink "$bin_link")" = "$app_dir/tpotbench" ]; then
        remove "$bin_link"
    fi
    remove "$app_dir"
    [ -d "$icons" ] && touch "$icons"  # tells icon-theme caches to look again
    [ "$removed" -gt 0 ] || echo "TPOT Bench is not installed for this user; nothing to remove"
    exit 0
fi

[ -x "$bundle/tpotbench" ] || fail "no bundle at $bundle (expected $bundle/tpotbench): \
build one with 'python packaging/build.py' or pass --bundle DIR"
[ -f "$HERE/$APP_ID.desktop" ] || fail "missing $HERE/$APP_ID.desktop next to this script"
[ -f "$icon_src/tpotbench.svg" ] || fail "missing $icon_src/tpotbench.svg; run from a checkout"
exe=$app_dir/tpotbench
case "$exe" in
    *[\"\`\$\\%]*) fail "the install folder $app_dir contains a quote, \$, \\ or %; \
set XDG_DATA_HOME to a plainer path" ;;
esac
check_app_dir_is_ours

# Copy beside the old install first, then swap, so a failed copy leaves the old one working.
mkdir -p "$data"
staging=$(mktemp -d "$data/.tpotbench-install.XXXXXX")
trap 'rm -rf -- "$staging"' EXIT
cp -R -- "$bundle/." "$staging/"
touch "$staging/$marker"
chmod 755 "$staging"
rm -rf -- "$app_dir"
mv -- "$staging" "$app_dir"
trap - EXIT
echo "installed the bundle in $app_dir"

mkdir -p "$(dirname "$bin_link")"
if [ -e "$bin_link" ] && [ ! -L "$bin_link" ]; then
    echo "note: $bin_link is a file not made by this script; left it alone" >&2
else
    ln -sfn -- "$exe" "$bin_link"
    echo "linked $bin_link"
fi

mkdir -p "$(dirname "$desktop")"
# Exec is always quoted (the path may contain spaces); TryExec takes the bare path.
sed -e "s|^Exec=.*|Exec=\"$exe\"|" -e "s|^TryExec=.*|TryExec=$exe|" \
    "$HERE/$APP_ID.desktop" >"$desktop"
echo "installed $desktop"

count=0
for png in "$icon_src"/hicolor/*/apps/"$APP_ID".png; do
    size_dir=$(basename "$(dirname "$(dirname "$png")")")
    mkdir -p "$icons/$size_dir/apps"
    cp -- "$png" "$icons/$size_dir/apps/"
    count=$((count + 1))
done
mkdir -p "$icons/scalable/apps"
cp -- "$icon_src/tpotbench.svg" "$icons/scalable/apps/$APP_ID.svg"
touch "$icons"
echo "installed $count PNG icons and the SVG under $icons"

case ":${PATH:-}:" in
    *":$(dirname "$bin_link"):"*) ;;
    *) echo "note: $(dirname "$bin_link") is not on your PATH; the launcher entry works anyway" ;;
esac
echo "done: find TPOT Bench in your application launcher, or run $exe"
