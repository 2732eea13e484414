/* SPDX-License-Identifier: MIT */
/* The characters that case-insensitive file systems take for ASCII: they
 * compare names after canonical decomposition (NFD) and full case folding
 * (Unicode CaseFolding.txt, statuses C and F), as APFS and Linux's casefold
 * do. These are all the characters that end up ASCII there: the Kelvin sign
 * and two Greek marks decompose to ASCII, the rest fold to it. Data only
 * (no code to link), for the scans (name_fold.c) and for the seatbelt
 * profile's regexes (plugins/seatbelt/sbpl_text.c), which is built on its
 * own as well. */
#ifndef ASB_COMMON_FOLD_ASCII_H
#define ASB_COMMON_FOLD_ASCII_H

struct fold_ascii {
	const char *utf8, *ascii; /* the character, and the lower-case ASCII it stands for */
};

static const struct fold_ascii fold_ascii[] = {
    {"\xc3\x9f", "ss"},     /* U+00DF sharp s */
    {"\xc5\xbf", "s"},      /* U+017F long s */
    {"\xcd\xbe", ";"},      /* U+037E Greek question mark */
    {"\xe1\xba\x9e", "ss"}, /* U+1E9E capital sharp s */
    {"\xe1\xbf\xaf", "`"},  /* U+1FEF Greek varia */
    {"\xe2\x84\xaa", "k"},  /* U+212A Kelvin sign */
    {"\xef\xac\x80", "ff"}, /* U+FB00..FB06 Latin ligatures */
    {"\xef\xac\x81", "fi"},  {"\xef\xac\x82", "fl"}, {"\xef\xac\x83", "ffi"},
    {"\xef\xac\x84", "ffl"}, {"\xef\xac\x85", "st"}, {"\xef\xac\x86", "st"},
};
#define FOLD_ASCII_COUNT (sizeof(fold_ascii) / sizeof(fold_ascii[0]))

#endif
