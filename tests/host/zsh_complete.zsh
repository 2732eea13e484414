#!/usr/bin/env zsh
# zsh_complete.zsh SCRIPT WORDS...: load the completion SCRIPT into an
# interactive zsh in a pty (zsh/zpty), type WORDS and a TAB, and print the
# candidates completion offered, one per line (compadd is wrapped to
# write them to a file).
zmodload zsh/zpty || exit 2
script=$1
shift
hits=$(mktemp)
zpty z zsh -f -i
zpty -w z "autoload -U compinit; compinit -u -D; source ${(q)script}"
zpty -w z "compadd() { local -a __h; builtin compadd -O __h \"\$@\"; print -rl -- \$__h >> ${(q)hits}; builtin compadd \"\$@\"; }"
zpty -w z "zstyle ':completion:*' menu no"
zpty -n -w z "$*"$'\t'
for _ in {1..50}; do [[ -s $hits ]] && break; sleep 0.1; done
sleep 0.3
zpty -d z
grep -v "^$" $hits | sort -u
rm -f $hits
