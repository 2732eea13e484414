/* SPDX-License-Identifier: MIT */
#include "complete.h"

#include "agents.h"
#include "log.h"
#include "options.h"
#include "termfilter.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* One flag of either table, as the generators see it. */
struct flag {
	const char *name;   /* "allow-ssh" */
	char short_name;    /* 'c' or 0 */
	const char *off;    /* a boolean's off flag, or NULL */
	int arg;            /* OPT_ARG_* */
	const char *values; /* OPT_ARG_WORDS */
	const char *help;   /* first line counts */
};

typedef void (*flag_fn)(FILE *f, const struct flag *fl, void *ud);

static char backends[512];
static char terminal_classes[256];

static void each_flag(const struct catalog *plugins, flag_fn fn, FILE *f, void *ud)
{
	for (size_t i = 0; i < n_core_options; i++) {
		const struct core_option *o = &core_options[i];
		struct flag fl = {o->name, o->short_name, o->is_bool ? o->off : NULL,
		                  o->arg,  o->values,     o->help};
		if (o->arg == OPT_ARG_BACKEND) {
			fl.arg = OPT_ARG_WORDS;
			fl.values = backends;
		} else if (o->arg == OPT_ARG_TERMINAL) {
			fl.arg = OPT_ARG_WORDS;
			fl.values = terminal_classes;
		}
		fn(f, &fl, ud);
	}
	for (size_t i = 0; plugins && i < plugins->n; i++) {
		const struct asb_plugin *d = plugins->v[i].desc;
		for (size_t j = 0; d && loader_option_at(d, j); j++) {
			const struct asb_option *o = loader_option_at(d, j);
			if (!o->flag)
				continue;
			char off[128];
			snprintf(off, sizeof(off), "%s", o->negative ? o->negative : "");
			if (!o->negative)
				snprintf(off, sizeof(off), "no-%s", o->flag);
			const char *values =
			    ASB_HAS(o, struct asb_option, values) ? o->values : NULL;
			struct flag fl = {o->flag,
			                  0,
			                  o->type == ASB_OPT_BOOL ? off : NULL,
			                  o->type == ASB_OPT_BOOL ? OPT_ARG_NONE
			                  : values                ? OPT_ARG_WORDS
			                                          : OPT_ARG_TEXT,
			                  values,
			                  o->help ? o->help : ""};
			fn(f, &fl, ud);
		}
	}
}

static void find_backends(const struct catalog *plugins)
{
	size_t w = 0;
	backends[0] = '\0';
	for (size_t i = 0; plugins && i < plugins->n; i++) {
		const struct asb_plugin *d = plugins->v[i].desc;
		if (d && (d->kind & ASB_KIND_BACKEND) && w < sizeof(backends))
			w += (size_t)snprintf(backends + w, sizeof(backends) - w, "%s%s",
			                      w ? " " : "", plugins->v[i].name);
	}
}

enum quote { Q_ZSH, Q_FISH };

/* A help text on one line, for a single-quoted word of the shell (zsh:
 * also _arguments' own [ ] : escaped). */
static void put_help(FILE *f, const char *help, int q)
{
	for (const char *c = help; *c; c++) {
		if (*c == '\n')
			fputc(' ', f);
		else if (*c == '\'' && q == Q_ZSH)
			fputs("'\\''", f);
		else if ((*c == '\'' || *c == '\\') && q == Q_FISH)
			fputc('\\', f), fputc(*c, f);
		else if (strchr("[]:\\", *c) && q == Q_ZSH)
			fputc('\\', f), fputc(*c, f);
		else
			fputc(*c, f);
	}
}

static void subcommand_words(FILE *f)
{
	for (const struct core_subcommand *s = core_subcommands; s->name; s++)
		fprintf(f, "%s%s", s == core_subcommands ? "" : " ", s->name);
}

/* The shell function that lists the names of a kind of word: agents (the
 * configs by name) or sessions; NULL for none. */
static const char *words_fn(int arg)
{
	return arg == OPT_ARG_AGENT ? "agents" : arg == OPT_ARG_SESSION ? "sessions" : NULL;
}

/* ------------------------------------------------------------------ bash */

static void bash_word(FILE *f, const struct flag *fl, void *ud)
{
	(void)ud;
	if (fl->short_name)
		fprintf(f, " -%c", fl->short_name);
	fprintf(f, " --%s", fl->name);
	if (fl->off)
		fprintf(f, " --%s", fl->off);
}

struct bash_case {
	int kind;
	FILE *out; /* the labels of one kind, "-c|--config|" */
};

static void bash_label(FILE *f, const struct flag *fl, void *ud)
{
	(void)f;
	struct bash_case *c = ud;
	if (fl->arg != c->kind)
		return;
	if (c->kind == OPT_ARG_WORDS) {
		/* Each has its own words: a case of its own. */
		if (fl->short_name)
			fprintf(c->out, "-%c|", fl->short_name);
		fprintf(c->out,
		        "--%s) COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return ;;\n        ",
		        fl->name, fl->values ? fl->values : "");
		return;
	}
	if (fl->short_name)
		fprintf(c->out, "-%c|", fl->short_name);
	fprintf(c->out, "--%s|", fl->name);
}

static void bash_cases(FILE *f, const struct catalog *plugins)
{
	static const int kinds[] = {OPT_ARG_CONFIG, OPT_ARG_DIR, OPT_ARG_PATH, OPT_ARG_TEXT,
	                            OPT_ARG_WORDS};
	static const char *const actions[] = {"COMPREPLY=($(compgen -f -X '!*.cfg' -- \"$cur\") "
	                                      "$(compgen -d -- \"$cur\") $(compgen -W "
	                                      "\"$(_agentsandbox_agents)\" -- \"$cur\")); "
	                                      "return ;;",
	                                      "COMPREPLY=($(compgen -d -- \"$cur\")); return ;;",
	                                      "COMPREPLY=($(compgen -f -- \"$cur\")); return ;;",
	                                      "return ;;", NULL};
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		char *buf = NULL;
		size_t len = 0;
		struct bash_case c = {kinds[k], open_memstream(&buf, &len)};
		if (!c.out)
			continue;
		each_flag(plugins, bash_label, f, &c);
		fclose(c.out);
		if (len && actions[k])
			fprintf(f, "%.*s) %s\n        ", (int)len - 1, buf, actions[k]);
		else if (len)
			fputs(buf, f);
		free(buf);
	}
}

/* After a subcommand: its own options and words, nothing else. */
static void bash_subcommands(FILE *f)
{
	fputs("    if [ \"$COMP_CWORD\" -gt 1 ]; then\n"
	      "        case ${COMP_WORDS[1]} in\n",
	      f);
	for (const struct core_subcommand *s = core_subcommands; s->name; s++) {
		fprintf(f, "        %s)\n", s->name);
		if (!s->options && !words_fn(s->words)) {
			fputs("            return ;;\n", f);
			continue;
		}
		for (const struct core_subopt *o = s->options; o && o->name; o++)
			if (words_fn(o->arg))
				fprintf(
				    f,
				    "            [ \"$prev\" = --%s ] && { COMPREPLY=($(compgen "
				    "-W \"$(_agentsandbox_%s)\" -- \"$cur\")); return; }\n",
				    o->name, words_fn(o->arg));
		fputs("            COMPREPLY=($(compgen -W \"", f);
		for (const struct core_subopt *o = s->options; o && o->name; o++)
			fprintf(f, "%s--%s", o == s->options ? "" : " ", o->name);
		if (words_fn(s->words))
			fprintf(f, " $(_agentsandbox_%s)", words_fn(s->words));
		fputs("\" -- \"$cur\"))\n"
		      "            return ;;\n",
		      f);
	}
	fputs("        esac\n"
	      "    fi\n",
	      f);
}

static void bash(FILE *f, const struct catalog *plugins, const char *examples)
{
	fprintf(f,
	        "# bash completion for agentsandbox (made by `agentsandbox --completion bash`)\n"
	        "_agentsandbox_agents()\n"
	        "{\n"
	        "    local d f\n"
	        "    for d in \"${XDG_CONFIG_HOME:-$HOME/.config}/agentsandbox\" '%s'; do\n"
	        "        for f in \"$d\"/*.cfg; do\n"
	        "            [ -e \"$f\" ] || continue\n"
	        "            f=${f##*/}; f=${f%%.cfg}\n"
	        "            [ \"$f\" = default ] || echo \"$f\"\n"
	        "        done\n"
	        "    done\n"
	        "}\n"
	        "_agentsandbox_sessions()\n"
	        "{\n"
	        "    local p\n"
	        "    while read -r p; do printf '%%s\\n' \"${p##*/}\"; done < <(agentsandbox "
	        "sessions --paths 2>/dev/null)\n"
	        "}\n"
	        "_agentsandbox()\n"
	        "{\n"
	        "    local cur prev i\n"
	        "    cur=${COMP_WORDS[COMP_CWORD]}\n"
	        "    prev=${COMP_WORDS[COMP_CWORD-1]}\n"
	        "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
	        "        # after --: the agent's arguments\n"
	        "        [ \"${COMP_WORDS[i]}\" = -- ] && { COMPREPLY=($(compgen -f -- \"$cur\")); "
	        "return; }\n"
	        "    done\n",
	        examples);
	bash_subcommands(f);
	fputs("    case $prev in\n        ", f);
	bash_cases(f, plugins);
	fprintf(f, "*) ;;\n"
	           "    esac\n"
	           "    if [ \"$COMP_CWORD\" -eq 1 ] && [[ $cur != -* ]]; then\n"
	           "        COMPREPLY=($(compgen -W \"");
	subcommand_words(f);
	fprintf(f, " $(_agentsandbox_agents)\" -- \"$cur\"))\n"
	           "        return\n"
	           "    fi\n"
	           "    COMPREPLY=($(compgen -W \"");
	each_flag(plugins, bash_word, f, NULL);
	fprintf(f, "\" -- \"$cur\"))\n"
	           "}\n"
	           "complete -F _agentsandbox agentsandbox\n");
}

/* ------------------------------------------------------------------- zsh */

static void zsh_spec(FILE *f, const struct flag *fl, void *ud)
{
	(void)ud;
	static const char *const action[] = {
	    [OPT_ARG_NONE] = "",
	    [OPT_ARG_CONFIG] = ":config:{_files -g \"*.cfg\"; _agentsandbox_add_agents}",
	    [OPT_ARG_DIR] = ":directory:_files -/",
	    [OPT_ARG_PATH] = ":path:_files",
	    [OPT_ARG_TEXT] = ":value: ",
	};
	const char *rep = fl->arg == OPT_ARG_PATH || fl->arg == OPT_ARG_TEXT ||
	                          fl->arg == OPT_ARG_DIR || fl->arg == OPT_ARG_WORDS
	                      ? "*"
	                      : "";
	fprintf(f, "    '%s--%s[", rep, fl->name);
	put_help(f, fl->help, Q_ZSH);
	fputc(']', f);
	if (fl->arg == OPT_ARG_WORDS)
		fprintf(f, ":value:(%s)", fl->values ? fl->values : "");
	else if (fl->arg < (int)ARRAY_SIZE(action))
		fputs(action[fl->arg], f);
	fputs("'\n", f);
	if (fl->short_name) {
		fprintf(f, "    '-%c[", fl->short_name);
		put_help(f, fl->help, Q_ZSH);
		fprintf(f, "]%s'\n", fl->arg < (int)ARRAY_SIZE(action) ? action[fl->arg] : "");
	}
	if (fl->off) {
		fprintf(f, "    '--%s[off: ", fl->off);
		put_help(f, fl->help, Q_ZSH);
		fputs("]'\n", f);
	}
}

/* After a subcommand: its own options and words, as a command of its
 * own. */
static void zsh_subcommands(FILE *f)
{
	fputs("  if (( CURRENT > 2 )); then\n"
	      "    case $words[2] in\n",
	      f);
	for (const struct core_subcommand *s = core_subcommands; s->name; s++) {
		fprintf(f, "      %s)\n", s->name);
		if (!s->options && !words_fn(s->words)) {
			fputs("        return 1 ;;\n", f);
			continue;
		}
		fputs("        shift words; (( CURRENT-- ))\n"
		      "        _arguments -s -S :",
		      f);
		for (const struct core_subopt *o = s->options; o && o->name; o++) {
			fprintf(f, " '--%s[", o->name);
			put_help(f, o->help, Q_ZSH);
			fputc(']', f);
			if (words_fn(o->arg))
				fprintf(f, ":%s:_agentsandbox_add_%s", o->name, words_fn(o->arg));
			fputc('\'', f);
		}
		if (words_fn(s->words))
			fprintf(f, " '*: :_agentsandbox_add_%s'", words_fn(s->words));
		fputs(" && return 0\n"
		      "        return 1 ;;\n",
		      f);
	}
	fputs("    esac\n"
	      "  fi\n",
	      f);
}

static void zsh(FILE *f, const struct catalog *plugins, const char *examples)
{
	fprintf(f,
	        "#compdef agentsandbox\n"
	        "# zsh completion for agentsandbox (made by `agentsandbox --completion zsh`)\n"
	        "_agentsandbox_agents() {\n"
	        "  local d f\n"
	        "  for d in \"${XDG_CONFIG_HOME:-$HOME/.config}/agentsandbox\" '%s'; do\n"
	        "    for f in \"$d\"/*.cfg(N); do\n"
	        "      f=${f:t:r}\n"
	        "      [[ $f == default ]] || print -r -- $f\n"
	        "    done\n"
	        "  done\n"
	        "}\n"
	        "_agentsandbox_sessions() {\n"
	        "  local p\n"
	        "  for p in ${(f)\"$(agentsandbox sessions --paths 2>/dev/null)\"}; do\n"
	        "    print -r -- ${p:t}\n"
	        "  done\n"
	        "}\n"
	        "_agentsandbox_add_agents() { compadd -- ${(f)\"$(_agentsandbox_agents)\"} }\n"
	        "_agentsandbox_add_sessions() { compadd -- ${(f)\"$(_agentsandbox_sessions)\"} }\n"
	        "_agentsandbox() {\n"
	        "  local curcontext=\"$curcontext\" state line ret=1\n"
	        "  typeset -A opt_args\n",
	        examples);
	zsh_subcommands(f);
	fputs("  local -a specs\n"
	      "  specs=(\n",
	      f);
	each_flag(plugins, zsh_spec, f, NULL);
	fprintf(f, "    '1: :->first'\n"
	           "    '*: :->rest'\n"
	           "  )\n"
	           "  _arguments -s -S : $specs && ret=0\n"
	           "  case $state in\n"
	           "    first)\n"
	           "      local -a first\n"
	           "      first=(");
	subcommand_words(f);
	fprintf(f, " ${(f)\"$(_agentsandbox_agents)\"})\n"
	           "      compadd -a first && ret=0 ;;\n"
	           "    rest)\n"
	           "      _files && ret=0 ;;\n"
	           "  esac\n"
	           "  return ret\n"
	           "}\n"
	           "compdef _agentsandbox agentsandbox\n");
}

/* ------------------------------------------------------------------ fish */

static void fish_line(FILE *f, const struct flag *fl, void *ud)
{
	(void)ud;
	fputs("complete -c agentsandbox -n __agentsandbox_no_sub", f);
	if (fl->short_name)
		fprintf(f, " -s %c", fl->short_name);
	fprintf(f, " -l %s", fl->name);
	switch (fl->arg) {
	case OPT_ARG_CONFIG:
		fputs(" -r -F -a '(__agentsandbox_agents)'", f);
		break;
	case OPT_ARG_PATH:
		fputs(" -r -F", f);
		break;
	case OPT_ARG_DIR:
		fputs(" -x -a '(__fish_complete_directories)'", f);
		break;
	case OPT_ARG_TEXT:
		fputs(" -x", f);
		break;
	case OPT_ARG_WORDS:
		fprintf(f, " -x -a '%s'", fl->values ? fl->values : "");
		break;
	}
	fputs(" -d '", f);
	put_help(f, fl->help, Q_FISH);
	fputs("'\n", f);
	if (fl->off) {
		fprintf(f, "complete -c agentsandbox -n __agentsandbox_no_sub -l %s -d 'off: ",
		        fl->off);
		put_help(f, fl->help, Q_FISH);
		fputs("'\n", f);
	}
}

static void fish(FILE *f, const struct catalog *plugins, const char *examples)
{
	char subs[256] = "";
	size_t n = 0;
	for (const struct core_subcommand *s = core_subcommands; s->name && n < sizeof(subs); s++)
		n += (size_t)snprintf(subs + n, sizeof(subs) - n, "%s%s", n ? " " : "", s->name);
	fprintf(f,
	        "# fish completion for agentsandbox (made by `agentsandbox --completion fish`)\n"
	        "function __agentsandbox_agents\n"
	        "    set -l mine $HOME/.config/agentsandbox\n"
	        "    set -q XDG_CONFIG_HOME; and set mine $XDG_CONFIG_HOME/agentsandbox\n"
	        "    for f in $mine/*.cfg '%s'/*.cfg\n"
	        "        set -l n (string replace -r '.*/(.*)\\.cfg$' '$1' -- $f)\n"
	        "        test \"$n\" = default; or echo $n\n"
	        "    end\n"
	        "end\n"
	        "function __agentsandbox_sessions\n"
	        "    for p in (agentsandbox sessions --paths 2>/dev/null)\n"
	        "        string replace -r '.*/' '' -- $p\n"
	        "    end\n"
	        "end\n"
	        "# the subcommand NAME is the first word\n"
	        "function __agentsandbox_sub\n"
	        "    set -l w (commandline -opc)\n"
	        "    test (count $w) -ge 2; and test \"$w[2]\" = $argv[1]\n"
	        "end\n"
	        "# the launcher's options: not after a subcommand\n"
	        "function __agentsandbox_no_sub\n"
	        "    set -l w (commandline -opc)\n"
	        "    test (count $w) -lt 2; or not contains -- $w[2] %s\n"
	        "end\n"
	        "complete -c agentsandbox -f\n"
	        "complete -c agentsandbox -n __fish_use_subcommand -a '",
	        examples, subs);
	subcommand_words(f);
	fputs("'\n"
	      "complete -c agentsandbox -n __fish_use_subcommand -a '(__agentsandbox_agents)' -d "
	      "agent\n",
	      f);
	for (const struct core_subcommand *s = core_subcommands; s->name; s++) {
		const char *w = words_fn(s->words);
		if (w)
			fprintf(f,
			        "complete -c agentsandbox -n '__agentsandbox_sub %s' -a "
			        "'(__agentsandbox_%s)' -d %.*s\n",
			        s->name, w, (int)strlen(w) - 1, w);
		for (const struct core_subopt *o = s->options; o && o->name; o++) {
			fprintf(f, "complete -c agentsandbox -n '__agentsandbox_sub %s' -l %s",
			        s->name, o->name);
			if (words_fn(o->arg))
				fprintf(f, " -x -a '(__agentsandbox_%s)'", words_fn(o->arg));
			fputs(" -d '", f);
			put_help(f, o->help, Q_FISH);
			fputs("'\n", f);
		}
	}
	each_flag(plugins, fish_line, f, NULL);
}

int complete_script(void *file, const char *shell, const struct catalog *plugins)
{
	FILE *f = file;
	_cleanup_free_ char *examples = agents_examples_dir();
	if (!examples)
		return -ENOMEM;
	find_backends(plugins);
	size_t w = 0;
	terminal_classes[0] = '\0';
	for (unsigned i = 0; i < TF_NCLASSES && w < sizeof(terminal_classes); i++)
		w += (size_t)snprintf(terminal_classes + w, sizeof(terminal_classes) - w, "%s%s",
		                      i ? " " : "", termfilter_class_name(i));
	if (strcmp(shell, "bash") == 0)
		bash(f, plugins, examples);
	else if (strcmp(shell, "zsh") == 0)
		zsh(f, plugins, examples);
	else if (strcmp(shell, "fish") == 0)
		fish(f, plugins, examples);
	else {
		err_set("--completion %s: bash, zsh or fish", shell);
		return -EINVAL;
	}
	return fflush(f) == 0 ? 0 : -EIO;
}
