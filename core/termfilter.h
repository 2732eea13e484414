/* SPDX-License-Identifier: MIT */
/* What the agent's output may do to the user's terminal. A streaming parser
 * of the sequences terminals act on (ECMA-48 and the DEC/xterm extensions:
 * ESC, CSI, OSC, DCS, APC, PM, SOS, in their 7-bit and 8-bit forms and as
 * UTF-8 encoded C1) that passes text and screen control through byte for
 * byte and drops what reaches beyond the screen:
 *
 *   clipboard      OSC 52, 5522 (set or read the host clipboard)
 *   title          OSC 0, 1, 2; CSI 22/23 t (window and icon titles)
 *   hyperlinks     OSC 8
 *   notifications  OSC 9, 99, 777 (desktop notifications, progress)
 *   shell-integration  OSC 7, 133, 633, 697, 3008 (cwd, prompt marks)
 *   files          OSC 1337, 5113 (iTerm2's and kitty's file transfer and more)
 *   graphics       DCS ... q (sixel), APC G (kitty graphics)
 *   window         CSI t (move, resize, iconify...), CSI i (media copy)
 *
 * Each class can be let through (`allow`). Never passed: the rest of DCS
 * (DECRQSS, XTGETTCAP, DECUDK key definitions, tmux passthrough), PM, SOS,
 * other APC, unknown OSC, title reports (CSI 20/21 t), DECRQCRA (a checksum
 * of screen content), ENQ. Passed: text, cursor and screen control, SGR,
 * colours, modes, and the reports a TUI needs (DA, DSR/CPR, DECRQM,
 * XTVERSION, size reports, colour queries): the terminal answers those into
 * the agent's own input, and at exit the caller fences them off
 * (termfilter.queried) so that no late answer lands in the shell.
 *
 * Modes a TUI turns on (alternate screen, mouse, bracketed paste, focus
 * events, application keys, cursor visibility, keyboard protocols, scroll
 * region, charsets, colours) are tracked so that termfilter_restore() can
 * put the terminal back, on exit and on suspend, and termfilter_reapply()
 * can set them again on resume. Pure: no I/O. */
#ifndef ASB_CORE_TERMFILTER_H
#define ASB_CORE_TERMFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TF_CLIPBOARD     0x001u
#define TF_TITLE         0x002u
#define TF_HYPERLINKS    0x004u
#define TF_NOTIFICATIONS 0x008u
#define TF_SHELL         0x010u
#define TF_FILES         0x020u
#define TF_GRAPHICS      0x040u
#define TF_WINDOW        0x080u
#define TF_NCLASSES      8
#define TF_NEVER         0x100u /* counts what no class lets through */

#define TF_SEQ_MAX 4096

/* For messages and --help. */
#define TERMINAL_CLASSES                                                                           \
	"clipboard, title, hyperlinks, notifications, shell-integration, files, graphics, window"

/* Tracked DEC private modes (CSI ? N h/l), as bits. */
enum {
	TF_M_DECCKM,      /* 1: application cursor keys */
	TF_M_REVERSE,     /* 5 */
	TF_M_ORIGIN,      /* 6 */
	TF_M_AUTOWRAP,    /* 7 (on by default) */
	TF_M_MOUSE_X10,   /* 9 */
	TF_M_CURSOR,      /* 25 (on by default) */
	TF_M_ALT47,       /* 47 */
	TF_M_KEYPAD,      /* 66 */
	TF_M_MOUSE,       /* 1000 */
	TF_M_MOUSE_HL,    /* 1001 */
	TF_M_MOUSE_BTN,   /* 1002 */
	TF_M_MOUSE_ANY,   /* 1003 */
	TF_M_FOCUS,       /* 1004 */
	TF_M_MOUSE_UTF8,  /* 1005 */
	TF_M_MOUSE_SGR,   /* 1006 */
	TF_M_ALTSCROLL,   /* 1007 */
	TF_M_MOUSE_URXVT, /* 1015 */
	TF_M_MOUSE_PIX,   /* 1016 */
	TF_M_ALT1047,     /* 1047 */
	TF_M_SAVE1048,    /* 1048 */
	TF_M_ALT1049,     /* 1049 */
	TF_M_PASTE,       /* 2004 */
	TF_M_SYNC,        /* 2026 */
	TF_M_COUNT
};

struct termfilter {
	uint32_t allow; /* TF_* classes let through */
	/* parser */
	int state;
	unsigned char seq[TF_SEQ_MAX]; /* the sequence being decided, as 7-bit */
	size_t seq_len;
	int utf8_left;     /* continuation bytes expected */
	bool held_c2;      /* a 0xC2 that may start a UTF-8 encoded C1 */
	bool str_pass;     /* a string being streamed through */
	bool str_esc;      /* an ESC seen inside a string */
	bool str_bel_ends; /* OSC: BEL ends it too */
	bool str_class;    /* the colour OSC being passed: watch for a set */
	/* what the terminal has been asked to do */
	uint32_t modes_on, modes_changed; /* bits of TF_M_* */
	bool ansi_insert, ansi_newline;   /* SM 4, SM 20 */
	bool keypad_app;                  /* ESC = */
	bool charset_g0, shifted_out;     /* ESC ( 0, SO */
	bool scroll_region, cursor_style, mod_keys, colors, c1_8bit, not_utf8;
	int kitty_pushes;                  /* CSI > u minus CSI < u */
	bool kitty_set;                    /* CSI = u */
	bool queried;                      /* a report request passed (the caller fences) */
	uint64_t dropped[TF_NCLASSES + 1]; /* per class; [TF_NCLASSES]: never-passed */
};

void termfilter_init(struct termfilter *f, uint32_t allow);
/* Room `out` needs for `len` input bytes. */
size_t termfilter_out_max(size_t len);
/* Filter one chunk; returns the bytes written to `out`. */
size_t termfilter_feed(struct termfilter *f, const unsigned char *in, size_t len,
                       unsigned char *out);
/* The end of the stream: an unfinished sequence is dropped, a held byte
 * written. Returns bytes written (at most 8). */
size_t termfilter_finish(struct termfilter *f, unsigned char *out);
/* Sequences that put the terminal's modes back (nothing when the agent
 * changed none); `reapply` the ones that set them again. Return bytes. */
size_t termfilter_restore(const struct termfilter *f, char *out, size_t cap);
size_t termfilter_reapply(const struct termfilter *f, char *out, size_t cap);

/* "clipboard" -> TF_CLIPBOARD; 0 when unknown. */
uint32_t termfilter_class(const char *name);
const char *termfilter_class_name(unsigned index); /* index < TF_NCLASSES */

#endif
