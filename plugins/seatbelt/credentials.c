/* SPDX-License-Identifier: MIT */
/*
 * The read-deny list for a shared $HOME. The first block is the list the
 * seatbelt backend of seeds/001 denies (its "Linux vs macOS" note); the rest
 * are the macOS keychains and browser profiles the issue names, and token
 * files that package managers keep in $HOME. A path the plan itself names
 * at or below one of these stays as the plan says (that is how --allow-ssh
 * and its like grant one on purpose); a directory declared above one of them
 * does not open it.
 */
#include "credentials.h"

#include <stddef.h>

const struct sbpl_credential sbpl_credentials[] = {
    /* seeds/001 */
    {".ssh", "ssh keys and agent sockets"},
    {".gnupg", "gpg keys and agent sockets"},
    {".aws", "AWS credentials"},
    {".azure", "Azure credentials"},
    {".config/gcloud", "Google Cloud credentials"},
    {".docker", "Docker registry credentials"},
    {".gitconfig", "git credential helpers and tokens"},
    {".git-credentials", "git stored credentials"},
    {".netrc", "machine passwords"},
    {".kube", "Kubernetes credentials"},
    {".terraform.d", "Terraform Cloud tokens"},
    {".config/gh", "GitHub CLI tokens"},
    {".local/share/keyrings", "desktop keyrings"},
    {".gnome-keyring", "desktop keyrings"},
    {".password-store", "pass(1) password store"},
    {".1password", "1Password"},
    {".bitwarden", "Bitwarden"},
    /* macOS keychains and browser profiles */
    {"Library/Keychains", "macOS keychains"},
    {"Library/Cookies", "macOS cookie store"},
    {"Library/Safari", "Safari profile"},
    {"Library/Application Support/Google/Chrome", "Chrome profiles"},
    {"Library/Application Support/Chromium", "Chromium profiles"},
    {"Library/Application Support/Firefox", "Firefox profiles"},
    {"Library/Application Support/BraveSoftware", "Brave profiles"},
    {"Library/Application Support/Microsoft Edge", "Edge profiles"},
    {"Library/Application Support/Arc", "Arc profiles"},
    {"Library/Application Support/1Password", "1Password"},
    {"Library/Group Containers/2BUA8C4S2C.com.1password", "1Password"},
    {".mozilla", "Firefox profiles"},
    {".config/google-chrome", "Chrome profiles"},
    {".config/chromium", "Chromium profiles"},
    /* tokens in dotfiles */
    {".npmrc", "npm registry tokens"},
    {".pypirc", "PyPI tokens"},
    {".cargo/credentials", "crates.io token"},
    {".cargo/credentials.toml", "crates.io token"},
    {".config/op", "1Password CLI"},
    {".vault-token", "HashiCorp Vault token"},
    {".pgpass", "PostgreSQL passwords"},
    {NULL, NULL},
};
