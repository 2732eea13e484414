/* SPDX-License-Identifier: MIT */
/* The seed's macOS notes, for a seatbelt launch: the browsers' own sandboxes
 * cannot nest there, localhost is the host's (so driver ports are pinned and
 * listed), and the proxy capability and acceptInsecureCerts go together.
 * Pure: built from the network intent, reported by browsers.c in launch.log
 * and --show-config. */
#ifndef ASB_BROWSERS_NOTES_H
#define ASB_BROWSERS_NOTES_H

#include <agentsandbox/plugin.h>

#include <stdbool.h>

/* Ports the drivers are pinned to in the notes (their own defaults). */
#define NOTES_CHROMEDRIVER_PORT 9515
#define NOTES_GECKODRIVER_PORT  4444
#define NOTES_MARIONETTE_PORT   2828
#define NOTES_BIDI_PORT         9222

/* One note: `key` short ("ports"), `line` the advice; `warn` when the policy
 * misses something the note asks for. Returns < 0 to stop. */
typedef int (*note_fn)(void *ud, const char *key, const char *line, bool warn);

int notes_macos(const struct asb_network *net, bool chromium, bool firefox, note_fn add, void *ud);

#endif
