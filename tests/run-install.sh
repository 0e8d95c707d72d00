#!/bin/bash
# make install into a scratch DESTDIR: the binary, a man page per command that
# man -l renders, the bash completion (which completes), the docs and schemas;
# make uninstall removes all of it.
#
# usage: tests/run-install.sh "MAKE-COMMAND"
make=$1
. "$(dirname "$0")/lib.sh"
dest=$tmp

$make install DESTDIR="$dest" PREFIX=/usr >/dev/null || bad "make install"
[ -x "$dest/usr/bin/schedreplay" ] && ok || bad "no binary"
for cmd in "" -analyze -explain -diff -policies -topology -record; do
	page=$dest/usr/share/man/man1/schedreplay$cmd.1
	if [ ! -f "$page" ]; then
		bad "no man page schedreplay$cmd(1)"
	elif MANWIDTH=80 man -l "$page" 2>&1 >/dev/null | grep -q . ||
	     ! MANWIDTH=80 man -l "$page" 2>/dev/null | grep -q '^NAME'; then
		bad "man -l schedreplay$cmd.1 does not render cleanly"
	else
		ok
	fi
done
# every command has its page
for cmd in $("$dest/usr/bin/schedreplay" --help | awk '/^commands:/ {on = 1; next} on && NF {print $1} !NF && on {exit}'); do
	[ -f "$dest/usr/share/man/man1/schedreplay-$cmd.1" ] && ok || bad "no page for $cmd"
done
comp=$dest/usr/share/bash-completion/completions/schedreplay
if [ -f "$comp" ] && [ -f /usr/share/bash-completion/bash_completion ]; then
	out=$(PATH="$dest/usr/bin:$PATH" bash -c '
		source /usr/share/bash-completion/bash_completion
		source "$1"
		complete_words() {
			COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
			COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
			_schedreplay schedreplay "${COMP_WORDS[-1]}" "${COMP_WORDS[-2]}"
			echo "${COMPREPLY[*]}"
		}
		complete_words schedreplay ana
		complete_words schedreplay explain x.dat --wak
		complete_words schedreplay diff x.dat --policy linux-6.1
		complete_words schedreplay analyze x.dat --format ""
		complete_words schedreplay analyze x.dat --topology fla
	' _ "$comp")
	mapfile -t got <<<"$out"
	[ "${got[0]}" = analyze ] && [ "${got[1]}" = --wakeup ] &&
		[[ " ${got[2]} " == *" linux-6.1 "* ]] && [ "${got[3]}" = "text json" ] &&
		[[ " ${got[4]} " == *" flat "* ]] &&
		ok || bad "completion: got '$out'"
else
	bad "no completion installed, or bash-completion missing"
fi
[ -f "$dest/usr/share/doc/schedreplay/README.md" ] && ls "$dest"/usr/share/doc/schedreplay/schema/*.json >/dev/null 2>&1 &&
	ok || bad "docs or schemas not installed"
$make uninstall DESTDIR="$dest" PREFIX=/usr >/dev/null || bad "make uninstall"
left=$(find "$dest" -type f | wc -l)
[ "$left" -eq 0 ] && ok || bad "make uninstall left $left files"
finish install
