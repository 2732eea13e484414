/* SPDX-License-Identifier: MIT */
#include "termfilter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	S_GROUND,
	S_ESC,       /* ESC seen */
	S_ESC_INTER, /* ESC and intermediates */
	S_CSI,       /* collecting a CSI */
	S_CSI_IGNORE,
	S_OSC_NUM, /* ESC ] and its number */
	S_DCS_HDR, /* ESC P and its parameters */
	S_APC,     /* ESC _, its first byte decides */
	S_STR,     /* a string, streamed through (str_pass) or discarded */
};

#define ESC 0x1b
#define BEL 0x07
#define CAN 0x18
#define SUB 0x1a

static const char *const class_names[TF_NCLASSES] = {
    "clipboard",         "title", "hyperlinks", "notifications",
    "shell-integration", "files", "graphics",   "window"};

uint32_t termfilter_class(const char *name)
{
	for (unsigned i = 0; i < TF_NCLASSES; i++)
		if (strcmp(class_names[i], name) == 0)
			return 1u << i;
	return 0;
}

const char *termfilter_class_name(unsigned index)
{
	return index < TF_NCLASSES ? class_names[index] : "never";
}

void termfilter_init(struct termfilter *f, uint32_t allow)
{
	memset(f, 0, sizeof(*f));
	f->allow = allow;
	f->modes_on = (1u << TF_M_AUTOWRAP) | (1u << TF_M_CURSOR);
}

size_t termfilter_out_max(size_t len)
{
	/* A held sequence comes out with a later chunk; an 8-bit C1 becomes
	 * two bytes. */
	return 2 * len + TF_SEQ_MAX + 16;
}

/* Count a dropped sequence; true when its class is let through. */
static bool allowed(struct termfilter *f, uint32_t cls)
{
	if (cls != TF_NEVER && (f->allow & cls))
		return true;
	unsigned i = 0;
	while (cls != TF_NEVER && i < TF_NCLASSES && !(cls & (1u << i)))
		i++;
	f->dropped[cls == TF_NEVER ? TF_NCLASSES : i]++;
	return false;
}

static void seq_add(struct termfilter *f, unsigned char c)
{
	if (f->seq_len < sizeof(f->seq))
		f->seq[f->seq_len++] = c;
}

static void begin(struct termfilter *f, int state, unsigned char intro)
{
	f->state = state;
	f->seq[0] = ESC;
	f->seq[1] = intro;
	f->seq_len = 2;
}

/* The numeric parameters of a CSI (after any private marker): up to 16. */
static size_t params(const struct termfilter *f, size_t from, size_t to, long *p, size_t max)
{
	size_t n = 0;
	long v = -1;
	for (size_t i = from; i < to; i++) {
		unsigned char c = f->seq[i];
		if (c >= '0' && c <= '9') {
			v = (v < 0 ? 0 : v) * 10 + (c - '0');
			if (v > 100000)
				v = 100000;
		} else if (c == ';' || c == ':') {
			if (n < max)
				p[n++] = v;
			v = -1;
			if (c == ':') /* sub-parameters: not ours */
				while (i + 1 < to && f->seq[i + 1] != ';')
					i++;
		}
	}
	if (n < max && (v >= 0 || n > 0))
		p[n++] = v;
	return n;
}

static int mode_bit(long n)
{
	static const long nums[TF_M_COUNT] = {1,    5,    6,    7,    9,    25,   47,   66,
	                                      1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007,
	                                      1015, 1016, 1047, 1048, 1049, 2004, 2026};
	for (int i = 0; i < TF_M_COUNT; i++)
		if (nums[i] == n)
			return i;
	return -1;
}

static void reset_tracking(struct termfilter *f)
{
	uint32_t allow = f->allow;
	bool queried = f->queried;
	uint64_t dropped[TF_NCLASSES + 1];
	memcpy(dropped, f->dropped, sizeof(dropped));
	int state = f->state;
	termfilter_init(f, allow);
	f->queried = queried;
	f->state = state;
	memcpy(f->dropped, dropped, sizeof(dropped));
}

/* A complete CSI in seq: pass it (true) or drop it. */
static bool decide_csi(struct termfilter *f)
{
	size_t end = f->seq_len - 1; /* the final byte */
	unsigned char fin = f->seq[end];
	unsigned char priv = f->seq_len > 3 && strchr("<=>?", f->seq[2]) ? f->seq[2] : 0;
	unsigned char inter = 0;
	size_t body_end = end;
	while (body_end > 2 && f->seq[body_end - 1] >= 0x20 && f->seq[body_end - 1] <= 0x2f)
		inter = f->seq[--body_end];
	long p[16];
	size_t np = params(f, priv ? 3 : 2, body_end, p, 16);
	long p0 = np ? p[0] : -1;

	if (fin == 't' && !inter) {
		if (priv == '>')
			return allowed(f, TF_TITLE); /* title modes */
		if (p0 == 20 || p0 == 21)
			return allowed(f, TF_NEVER); /* reports the title into the input */
		if (p0 == 22 || p0 == 23)
			return allowed(f, TF_TITLE); /* title stack */
		if (p0 == 11 || p0 == 13 || p0 == 14 || p0 == 15 || p0 == 16 || p0 == 18 ||
		    p0 == 19)
			return f->queried = true; /* size and state reports: numbers */
		return allowed(f, TF_WINDOW);
	}
	if (fin == 'i' && !inter)
		return allowed(f, TF_WINDOW); /* media copy: to a printer, or a program */
	if (fin == 'y' && inter == '*')
		return allowed(f, TF_NEVER); /* DECRQCRA: a checksum of the screen */
	if (fin == 'c' || (fin == 'n' && (priv == 0 || priv == '?')) ||
	    (fin == 'p' && inter == '$') || (fin == 'q' && priv == '>') || fin == 'x' ||
	    (fin == 'u' && priv == '?') || (fin == 'm' && priv == '?') ||
	    (fin == 'S' && priv == '?'))
		return f->queried = true;
	if ((fin == 'h' || fin == 'l') && !inter) {
		bool on = fin == 'h';
		for (size_t i = 0; i < np; i++) {
			if (priv == '?') {
				int b = mode_bit(p[i]);
				if (b >= 0) {
					f->modes_changed |= 1u << b;
					f->modes_on =
					    on ? f->modes_on | (1u << b) : f->modes_on & ~(1u << b);
				}
			} else if (!priv && p[i] == 4) {
				f->ansi_insert = on;
			} else if (!priv && p[i] == 20) {
				f->ansi_newline = on;
			}
		}
		return true;
	}
	if (fin == 'r' && !priv && !inter)
		f->scroll_region = np > 0 && !(np <= 2 && p[0] <= 1 && (np < 2 || p[1] < 0));
	else if (fin == 'q' && inter == ' ')
		f->cursor_style = p0 > 0;
	else if (fin == 'u' && priv == '>')
		f->kitty_pushes++;
	else if (fin == 'u' && priv == '<') {
		int k = p0 > 0 ? (int)p0 : 1;
		f->kitty_pushes = f->kitty_pushes > k ? f->kitty_pushes - k : 0;
	} else if (fin == 'u' && priv == '=')
		f->kitty_set = true;
	else if (fin == 'm' && priv == '>' && (p0 == 4 || p0 < 0))
		f->mod_keys = np > 1 && p[1] > 0;
	return true;
}

static uint32_t osc_class(long n)
{
	switch (n) {
	case 0:
	case 1:
	case 2:
		return TF_TITLE;
	case 8:
		return TF_HYPERLINKS;
	case 9:
	case 99:
	case 777:
		return TF_NOTIFICATIONS;
	case 7:
	case 133:
	case 633:
	case 697:
	case 3008:
		return TF_SHELL;
	case 1337:
	case 5113:
		return TF_FILES;
	case 52:
	case 5522:
		return TF_CLIPBOARD;
	case 3:  /* set an X property of the window */
	case 50: /* the font */
		return TF_WINDOW;
	case 4:
	case 5:
	case 10:
	case 11:
	case 12:
	case 13:
	case 14:
	case 15:
	case 16:
	case 17:
	case 18:
	case 19:
	case 22: /* the pointer's shape */
	case 104:
	case 105:
	case 110:
	case 111:
	case 112:
	case 113:
	case 114:
	case 115:
	case 116:
	case 117:
	case 118:
	case 119:
		return 0; /* colours: passed, restored at exit */
	}
	return TF_NEVER;
}

#define PUT(c) (out[o++] = (unsigned char)(c))

/* One byte; returns the new output length. */
static size_t step(struct termfilter *f, unsigned char c, unsigned char *out, size_t o);

static size_t emit_seq(struct termfilter *f, unsigned char *out, size_t o)
{
	memcpy(out + o, f->seq, f->seq_len);
	return o + f->seq_len;
}

/* An 8-bit C1 control (raw, or encoded in UTF-8): ESC and its 7-bit final. */
static size_t c1(struct termfilter *f, unsigned char c, unsigned char *out, size_t o)
{
	f->state = S_ESC;
	f->seq[0] = ESC;
	f->seq_len = 1;
	return step(f, (unsigned char)(c - 0x40), out, o);
}

static size_t ground(struct termfilter *f, unsigned char c, unsigned char *out, size_t o)
{
	if (f->held_c2) {
		f->held_c2 = false;
		if (c >= 0x80 && c <= 0x9f)
			return c1(f, c, out, o); /* U+0080..U+009F: a C1 control */
		PUT(0xc2);
		f->utf8_left = 1;
	}
	if (c == ESC) {
		f->utf8_left = 0;
		f->state = S_ESC;
		f->seq[0] = ESC;
		f->seq_len = 1;
		return o;
	}
	if (c < 0x20) {
		f->utf8_left = 0;
		if (c == 0x05) { /* ENQ: the answerback string, into the input */
			(void)allowed(f, TF_NEVER);
			return o;
		}
		if (c == 0x0e)
			f->shifted_out = true;
		else if (c == 0x0f)
			f->shifted_out = false;
		PUT(c);
		return o;
	}
	if (c < 0x80) {
		f->utf8_left = 0;
		PUT(c);
		return o;
	}
	if (c < 0xc0) {
		if (f->utf8_left > 0) {
			f->utf8_left--;
			PUT(c);
			return o;
		}
		if (c <= 0x9f)
			return c1(f, c, out, o); /* a raw 8-bit C1 */
		PUT(c);
		return o;
	}
	if (c == 0xc2) {
		f->held_c2 = true;
		f->utf8_left = 0;
		return o;
	}
	f->utf8_left = c >= 0xf8 ? 0 : c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
	PUT(c);
	return o;
}

/* Bytes that act the same in every escape state. True when handled. */
static bool common_controls(struct termfilter *f, unsigned char c, unsigned char *out, size_t *o)
{
	if (c == CAN || c == SUB) { /* cancel what was started */
		out[(*o)++] = c;
		f->state = S_GROUND;
		return true;
	}
	if (c == ESC) { /* a new sequence replaces the unfinished one */
		f->state = S_ESC;
		f->seq[0] = ESC;
		f->seq_len = 1;
		return true;
	}
	if (c < 0x20) { /* C0 controls act at once, inside sequences too */
		out[(*o)++] = c;
		return true;
	}
	return false;
}

static size_t start_string(struct termfilter *f, bool pass, bool bel, unsigned char *out, size_t o)
{
	f->state = S_STR;
	f->str_class = 0;
	f->str_pass = pass;
	f->str_esc = false;
	f->str_bel_ends = bel;
	f->utf8_left = 0;
	f->held_c2 = false;
	if (pass)
		o = emit_seq(f, out, o);
	return o;
}

static size_t string(struct termfilter *f, unsigned char c, unsigned char *out, size_t o)
{
	if (f->str_esc) {
		f->str_esc = false;
		if (f->str_pass) {
			PUT(ESC);
			PUT('\\'); /* ended here either way */
		}
		f->state = S_GROUND;
		if (c == '\\')
			return o;
		f->state = S_ESC;
		f->seq[0] = ESC;
		f->seq_len = 1;
		return step(f, c, out, o);
	}
	bool st = false;
	if (f->held_c2) {
		f->held_c2 = false;
		if (c == 0x9c) {
			st = true; /* U+009C */
		} else if (f->str_pass) {
			PUT(0xc2);
		}
	}
	if (!st && c == 0x9c && f->utf8_left == 0)
		st = true; /* a raw 8-bit ST */
	if (st || (c == BEL && f->str_bel_ends)) {
		if (f->str_pass) {
			if (c == BEL && !st) {
				PUT(BEL);
			} else {
				PUT(ESC);
				PUT('\\');
			}
		}
		f->state = S_GROUND;
		f->utf8_left = 0;
		return o;
	}
	if (c == ESC) {
		f->str_esc = true;
		return o;
	}
	if (c == CAN || c == SUB) {
		if (f->str_pass)
			PUT(c);
		f->state = S_GROUND;
		return o;
	}
	if (c == 0xc2 && f->utf8_left == 0) {
		f->held_c2 = true;
		return o;
	}
	if (c >= 0xc0)
		f->utf8_left = c >= 0xf8 ? 0 : c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
	else if (c >= 0x80 && f->utf8_left > 0)
		f->utf8_left--;
	else
		f->utf8_left = 0;
	if (f->str_pass) {
		/* A colour OSC that sets rather than asks: restored at exit. */
		if (f->str_class && !strchr("0123456789;?", c))
			f->colors = true;
		PUT(c);
	}
	return o;
}

static size_t step(struct termfilter *f, unsigned char c, unsigned char *out, size_t o)
{
	switch (f->state) {
	case S_GROUND:
		return ground(f, c, out, o);
	case S_ESC:
		if (c == ESC)
			return o; /* ESC ESC: the first one does nothing */
		if (common_controls(f, c, out, &o))
			return o;
		if (c >= 0x80) {
			f->state = S_GROUND;
			return ground(f, c, out, o);
		}
		if (c == 0x7f)
			return o;
		if (c >= 0x20 && c <= 0x2f) {
			seq_add(f, c);
			f->state = S_ESC_INTER;
			return o;
		}
		switch (c) {
		case '[':
			begin(f, S_CSI, '[');
			return o;
		case ']':
			begin(f, S_OSC_NUM, ']');
			return o;
		case 'P':
			begin(f, S_DCS_HDR, 'P');
			return o;
		case '_':
			begin(f, S_APC, '_');
			return o;
		case '^':
		case 'X': /* PM, SOS: nothing a terminal should show */
			(void)allowed(f, TF_NEVER);
			return start_string(f, false, false, out, o);
		case '\\': /* a stray ST */
			f->state = S_GROUND;
			return o;
		case '=':
			f->keypad_app = true;
			break;
		case '>':
			f->keypad_app = false;
			break;
		case 'c': /* RIS: everything back to the defaults */
			reset_tracking(f);
			break;
		case 'Z': /* DECID: answered like DA */
			f->queried = true;
			break;
		}
		f->state = S_GROUND;
		PUT(ESC);
		PUT(c);
		return o;
	case S_ESC_INTER:
		if (common_controls(f, c, out, &o))
			return o;
		if (c >= 0x80) {
			f->state = S_GROUND;
			return ground(f, c, out, o);
		}
		if (c >= 0x20 && c <= 0x2f) {
			seq_add(f, c);
			return o;
		}
		if (c == 0x7f)
			return o;
		seq_add(f, c);
		if (f->seq[1] == '(')
			f->charset_g0 = c != 'B';
		else if (f->seq[1] == '%')
			f->not_utf8 = c == '@';
		else if (f->seq[1] == ' ' && (c == 'F' || c == 'G'))
			f->c1_8bit = c == 'G'; /* S8C1T: answers in 8-bit controls */
		f->state = S_GROUND;
		return emit_seq(f, out, o);
	case S_CSI:
	case S_CSI_IGNORE:
		if (common_controls(f, c, out, &o))
			return o;
		if (c >= 0x80) { /* not a CSI any more */
			f->state = S_GROUND;
			return ground(f, c, out, o);
		}
		if (c == 0x7f)
			return o;
		if (c >= 0x40) {
			bool pass = false;
			if (f->state == S_CSI) {
				seq_add(f, c);
				pass = decide_csi(f);
			} else {
				(void)allowed(f, TF_NEVER);
			}
			f->state = S_GROUND;
			return pass ? emit_seq(f, out, o) : o;
		}
		/* A parameter after an intermediate, or too long: malformed. */
		if ((c >= 0x30 && f->seq_len > 2 && f->seq[f->seq_len - 1] >= 0x20 &&
		     f->seq[f->seq_len - 1] <= 0x2f) ||
		    f->seq_len >= 256)
			f->state = S_CSI_IGNORE;
		else
			seq_add(f, c);
		return o;
	case S_OSC_NUM:
		if (c >= '0' && c <= '9' && f->seq_len < 12) {
			seq_add(f, c);
			return o;
		}
		{
			long n = -1;
			for (size_t i = 2; i < f->seq_len; i++)
				n = (n < 0 ? 0 : n) * 10 + (f->seq[i] - '0');
			bool known = c == ';' || c == BEL || c == ESC || c == 0x9c;
			uint32_t cls = known && n >= 0 ? osc_class(n) : TF_NEVER;
			bool pass = cls == 0 || allowed(f, cls);
			if (pass && c == ';')
				seq_add(f, c);
			o = start_string(f, pass, true, out, o);
			/* A colour OSC that sets (not one that asks or resets). */
			f->str_class =
			    pass && cls == 0 && n != 104 && n != 105 && !(n >= 110 && n <= 119);
			return c == ';' ? o : string(f, c, out, o);
		}
	case S_DCS_HDR:
		if (c == ESC || c == CAN || c == SUB || c >= 0x80 || f->seq_len >= 256) {
			(void)allowed(f, TF_NEVER);
			o = start_string(f, false, false, out, o);
			return string(f, c, out, o);
		}
		seq_add(f, c);
		if (c < 0x40)
			return o;
		{
			/* The final byte: only sixel graphics (no intermediate, 'q'). */
			bool sixel = c == 'q' && !(f->seq[f->seq_len - 2] >= 0x20 &&
			                           f->seq[f->seq_len - 2] <= 0x2f);
			bool pass = sixel ? allowed(f, TF_GRAPHICS) : allowed(f, TF_NEVER);
			return start_string(f, pass, false, out, o);
		}
	case S_APC: {
		bool kitty = c == 'G';
		bool pass = kitty ? allowed(f, TF_GRAPHICS) : allowed(f, TF_NEVER);
		if (pass)
			seq_add(f, c);
		o = start_string(f, pass, false, out, o);
		return pass ? o : string(f, c, out, o);
	}
	case S_STR:
		return string(f, c, out, o);
	}
	return o;
}

size_t termfilter_feed(struct termfilter *f, const unsigned char *in, size_t len,
                       unsigned char *out)
{
	size_t o = 0;
	size_t i = 0;
	while (i < len) {
		/* The common case: a run of text in the ground state. */
		if (f->state == S_GROUND && !f->held_c2) {
			size_t j = i;
			while (j < len && in[j] >= 0x20 && in[j] < 0x7f)
				j++;
			if (j > i) {
				memcpy(out + o, in + i, j - i);
				o += j - i;
				f->utf8_left = 0;
				i = j;
				continue;
			}
		}
		o = step(f, in[i++], out, o);
	}
	return o;
}

size_t termfilter_finish(struct termfilter *f, unsigned char *out)
{
	size_t o = 0;
	if (f->held_c2 && f->state == S_GROUND)
		PUT(0xc2);
	f->held_c2 = false;
	if (f->state == S_STR && f->str_pass) {
		PUT(ESC);
		PUT('\\');
	}
	f->state = S_GROUND;
	return o;
}

struct sbuf {
	char *p;
	size_t len, cap;
};

static void add(struct sbuf *b, const char *s)
{
	size_t n = strlen(s);
	if (b->len + n < b->cap) {
		memcpy(b->p + b->len, s, n);
		b->len += n;
		b->p[b->len] = '\0';
	}
}

static void mode(struct sbuf *b, int num, bool on)
{
	char s[24];
	snprintf(s, sizeof(s), "\x1b[?%d%c", num, on ? 'h' : 'l');
	add(b, s);
}

static bool on(const struct termfilter *f, int bit)
{
	return f->modes_on & (1u << bit);
}

static bool changed(const struct termfilter *f, int bit)
{
	return f->modes_changed & (1u << bit);
}

/* The modes a TUI turns on, and their DEC numbers (alternate screen first). */
static const struct {
	int bit, num;
} tui_modes[] = {
    {TF_M_ALT1049, 1049},     {TF_M_ALT1047, 1047},   {TF_M_ALT47, 47},
    {TF_M_MOUSE_X10, 9},      {TF_M_MOUSE, 1000},     {TF_M_MOUSE_HL, 1001},
    {TF_M_MOUSE_BTN, 1002},   {TF_M_MOUSE_ANY, 1003}, {TF_M_FOCUS, 1004},
    {TF_M_MOUSE_UTF8, 1005},  {TF_M_MOUSE_SGR, 1006}, {TF_M_ALTSCROLL, 1007},
    {TF_M_MOUSE_URXVT, 1015}, {TF_M_MOUSE_PIX, 1016}, {TF_M_PASTE, 2004},
    {TF_M_SYNC, 2026},        {TF_M_DECCKM, 1},       {TF_M_REVERSE, 5},
    {TF_M_ORIGIN, 6},         {TF_M_KEYPAD, 66},
};

size_t termfilter_restore(const struct termfilter *f, char *out, size_t cap)
{
	struct sbuf b = {out, 0, cap};
	if (cap)
		out[0] = '\0';
	for (size_t i = 0; i < sizeof(tui_modes) / sizeof(*tui_modes); i++)
		if (changed(f, tui_modes[i].bit) && on(f, tui_modes[i].bit))
			mode(&b, tui_modes[i].num, false);
	if (changed(f, TF_M_AUTOWRAP) && !on(f, TF_M_AUTOWRAP))
		mode(&b, 7, true);
	if (changed(f, TF_M_CURSOR) && !on(f, TF_M_CURSOR))
		mode(&b, 25, true);
	if (f->ansi_insert)
		add(&b, "\x1b[4l");
	if (f->ansi_newline)
		add(&b, "\x1b[20l");
	if (f->keypad_app)
		add(&b, "\x1b>");
	if (f->scroll_region)
		add(&b, "\x1b[r");
	if (f->cursor_style)
		add(&b, "\x1b[0 q");
	if (f->mod_keys)
		add(&b, "\x1b[>4m");
	if (f->kitty_pushes > 0) {
		char s[24];
		snprintf(s, sizeof(s), "\x1b[<%du", f->kitty_pushes);
		add(&b, s);
	}
	if (f->kitty_set)
		add(&b, "\x1b[=0;1u");
	if (f->colors)
		add(&b, "\x1b]104\x07\x1b]110\x07\x1b]111\x07\x1b]112\x07");
	if (f->charset_g0)
		add(&b, "\x1b(B");
	if (f->shifted_out)
		add(&b, "\x0f");
	if (f->c1_8bit)
		add(&b, "\x1b F");
	if (f->not_utf8)
		add(&b, "\x1b%G");
	return b.len;
}

size_t termfilter_reapply(const struct termfilter *f, char *out, size_t cap)
{
	struct sbuf b = {out, 0, cap};
	if (cap)
		out[0] = '\0';
	for (size_t i = 0; i < sizeof(tui_modes) / sizeof(*tui_modes); i++)
		if (changed(f, tui_modes[i].bit) && on(f, tui_modes[i].bit))
			mode(&b, tui_modes[i].num, true);
	if (changed(f, TF_M_CURSOR) && !on(f, TF_M_CURSOR))
		mode(&b, 25, false);
	if (f->keypad_app)
		add(&b, "\x1b=");
	return b.len;
}
