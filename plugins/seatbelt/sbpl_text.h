/* SPDX-License-Identifier: MIT */
/* Text for profiles: a growing buffer, path checks, string literals and the
 * case-insensitive regexes deny rules add. Private to plugins/seatbelt. */
#ifndef ASB_SEATBELT_SBPL_TEXT_H
#define ASB_SEATBELT_SBPL_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#if defined(__GNUC__)
#define SBPL_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define SBPL_PRINTF(f, a)
#endif

/* Appends never fail: an allocation failure sets `err` (-ENOMEM), which the
 * caller checks once at the end. */
struct sbpl_buf {
	char *data;
	size_t len, cap;
	int err;
};

void sbpl_buf_init(struct sbpl_buf *b);
void sbpl_buf_free(struct sbpl_buf *b);
void sbpl_buf_put(struct sbpl_buf *b, const char *s, size_t n);
void sbpl_buf_puts(struct sbpl_buf *b, const char *s);
void sbpl_buf_printf(struct sbpl_buf *b, const char *fmt, ...) SBPL_PRINTF(2, 3);
/* Takes the text (NUL-terminated); the buffer is empty afterwards. */
char *sbpl_buf_take(struct sbpl_buf *b, size_t *len);

/* Valid UTF-8 with no NUL, C0 control or DEL byte. */
bool sbpl_text_ok(const char *s, size_t n);

/* An absolute path in the form the kernel reports it: "/" or "/a/b", no
 * empty, "." or ".." component, no trailing slash, <= SBPL_PATH_MAX bytes,
 * valid UTF-8 without control characters. 0, or -errno and a reason. */
int sbpl_path_check(const char *path, const char **reason);

/* A SBPL string literal: "..." with \ and " escaped; nothing else needs to
 * be (control characters never get here). -ENAMETOOLONG when the literal
 * would exceed SBPL_STRING_MAX. */
int sbpl_quote(struct sbpl_buf *b, const char *s);

/* A comment: ";; " and `s` with every byte outside printable ASCII written
 * as \xHH, so no name can end the comment early. */
void sbpl_comment(struct sbpl_buf *b, const char *s);

/* The regex source (no quotes) for `anchor` spelled as it is, followed by
 * `tail` in every spelling case-insensitive APFS takes for it, then `end`
 * ("$" or "/"): every ASCII case, and the characters of fold_ascii.h (s
 * also as U+017F, k as U+212A, "ss" also as ß or ẞ, "fi" as ﬁ, ...; where
 * ligatures overlap, as in "sss", each way of splitting the letters). A
 * regex that would then not fit in a profile string goes without the
 * ligatures rather than be refused. Characters with a regex meaning are
 * bracketed; those that cannot be bracketed safely (\ " [ ] ^) and every
 * run of non-ASCII bytes become wildcards that stay inside one path
 * component. Only ever used in deny rules, where matching more is safe. */
void sbpl_fold_regex(struct sbpl_buf *b, const char *anchor, size_t anchor_len, const char *tail,
                     const char *end);

/* ASCII case-insensitive: is `a` the same path as `b` or an ancestor of it? */
bool sbpl_fold_within(const char *path, const char *root);
/* Exact: is `path` `root` or below it (component boundary)? */
bool sbpl_within(const char *path, const char *root);

#endif /* ASB_SEATBELT_SBPL_TEXT_H */
