/* SPDX-License-Identifier: MIT */
/*
 * Read-only system locations for a macOS sandbox. Everything here is the same
 * on every Mac (the sealed system volume, or files every user may read); none
 * of it is below /Users, /Library/Keychains or /private/var/folders. Nothing
 * is executable except what the agent's declared tools run as helpers:
 * dylibs and frameworks only need to be mapped, which reading allows.
 */
#include "macos_paths.h"

#include <agentsandbox/plugin.h>

#include <stddef.h>

const struct sbpl_system_path sbpl_system_paths[] = {
    {"/usr/lib", 0, "libSystem and the other system libraries, dyld"},
    {"/usr/libexec", 0, "helpers read by system tools (not executable)"},
    {"/usr/share", 0, "terminfo, zoneinfo, locale, man pages"},
    {"/System/Library", 0, "frameworks, the dyld cache on older macOS, root certificates"},
    {"/System/Cryptexes", 0, "the dyld shared cache (macOS 13 and later)"},
    {"/System/Volumes/Preboot/Cryptexes", 0, "the dyld shared cache (macOS 13 and later)"},
    {"/Library/Apple", 0, "Rosetta and Apple frameworks outside the system volume"},
    {"/private/var/db/dyld", 0, "the dyld shared cache (older macOS)"},
    {"/private/var/db/oah", 0, "Rosetta's translations of x86_64 code, mapped at run time"},
    {"/private/var/db/timezone", 0, "what /etc/localtime points to"},
    {SBPL_CLT_DIR, 0, "Apple's command line tools (git, make, python3 behind /usr/bin)"},
    {SBPL_CLT_DIR "/usr/libexec", ASB_ENTRY_F_EXEC, "git-core and the tools' own helpers"},
    {"/private/var/db/xcode_select_link", 0, "which command line tools xcrun runs"},
    {"/private/etc/passwd", 0, "users (getpwuid also asks opendirectoryd)"},
    {"/private/etc/group", 0, "groups"},
    {"/private/etc/hosts", 0, "host names"},
    {"/private/etc/services", 0, "port names"},
    {"/private/etc/protocols", 0, "protocol names"},
    {"/private/etc/shells", 0, "login shells"},
    {"/private/etc/localtime", 0, "the time zone"},
    {"/private/etc/resolv.conf", 0, "resolvers, for tools that read it themselves"},
    {"/private/etc/ssl", 0, "OpenSSL's certificate bundle (cert.pem)"},
    {"/private/etc/paths", 0, "path_helper, run by the system shell profiles"},
    {"/private/etc/paths.d", 0, "path_helper"},
    {"/private/etc/profile", 0, "system shell profile"},
    {"/private/etc/bashrc", 0, "system shell profile"},
    {"/private/etc/zshrc", 0, "system shell profile"},
    {"/private/etc/zprofile", 0, "system shell profile"},
    {NULL, 0, NULL},
};
