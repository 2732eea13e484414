# Options -> agentsandbox libconfig text. A pure function: builtins only, no
# nixpkgs, so it evaluates (and is tested) with plain `nix-instantiate --eval`.
#
# Arguments use mkSandbox's names, with the package arguments already turned
# into strings: `command` (absolute path or name) and `packages` (store paths
# or executable names). Everything else is data, checked here so a mistake is
# an evaluation error naming the argument, not a launch-time surprise.
#
# Env values and paths stay shell-style expressions ("$HOME/.claude",
# "$TOKEN"): the launcher expands them when it starts, so secrets never enter
# the store. So do credentials' values (value = "\${ANTHROPIC_API_KEY:-}"):
# the launcher reads them and hands them to the proxy, never to the agent.
{
  name,
  command,
  args ? [ ],
  backend ? null,
  workspaceDir ? null,
  packages ? [ ],
  rwDirs ? [ ],
  rwFiles ? [ ],
  roDirs ? [ ],
  roFiles ? [ ],
  env ? { },
  publicEnv ? [ ],
  allowedDomains ? null,
  credentials ? [ ],
  guardFiles ? [ ],
  allowUnixSockets ? false,
  allowedHostPorts ? [ ],
  publishedPorts ? [ ],
  allowNix ? false,
  allowHeadlessBrowsers ? [ ],
  plugins ? { },
}:
let
  inherit (builtins)
    attrNames
    concatStringsSep
    elem
    filter
    isAttrs
    isBool
    isInt
    isList
    isString
    length
    map
    match
    replaceStrings
    toString
    typeOf
    ;

  fail = arg: msg: throw "agentsandbox: ${arg}: ${msg}";

  # libconfig strings: backslash and double quote escaped, and the control
  # characters a Nix string can spell (\n \r \t) written as libconfig escapes.
  quote =
    s:
    "\""
    + replaceStrings [ "\\" "\"" "\n" "\r" "\t" ] [ "\\\\" "\\\"" "\\n" "\\r" "\\t" ] s
    + "\"";

  strArg =
    arg: v:
    if isString v then
      v
    else if isAttrs v && v ? outPath then
      toString v
    else if builtins.isPath v then
      toString v
    else
      fail arg "expected a string, got ${typeOf v}";

  nonEmptyStr =
    arg: v:
    let
      s = strArg arg v;
    in
    if s == "" then fail arg "must not be empty" else s;

  listArg =
    arg: v:
    if isList v then v else fail arg "expected a list, got ${typeOf v}";

  # "[ ]" or "[ a, b ]" / "( )" or "( a, b )".
  seq =
    open: close: items:
    if items == [ ] then "${open} ${close}" else "${open} ${concatStringsSep ", " items} ${close}";

  strList = arg: v: seq "[" "]" (map (x: quote (nonEmptyStr arg x)) (listArg arg v));

  boolArg = arg: v: if isBool v then v else fail arg "expected true or false, got ${typeOf v}";
  bool = b: if b then "true" else "false";

  # libconfig setting names: [A-Za-z*][-A-Za-z0-9_*]*; env names are stricter.
  envName =
    arg: k:
    if match "[A-Za-z][A-Za-z0-9_]*" k != null then
      k
    else
      fail arg "'${k}' is not a variable name libconfig can hold ([A-Za-z][A-Za-z0-9_]*)";
  settingName =
    arg: k:
    if match "[A-Za-z][-A-Za-z0-9_]*" k != null then k else fail arg "'${k}' is not a valid name";

  port =
    arg: p:
    if isInt p && p >= 1 && p <= 65535 then
      toString p
    else
      fail arg "ports must be integers from 1 to 65535, got ${if isInt p then toString p else typeOf p}";

  methodNames = [ "GET" "HEAD" "POST" "PUT" "PATCH" "DELETE" "OPTIONS" "CONNECT" "TRACE" ];
  method =
    d: m:
    if isString m && elem m methodNames then
      quote m
    else
      fail "allowedDomains" "'${d}': unknown HTTP method ${if isString m then "'${m}'" else typeOf m}";

  # "api.github.com/graphql" -> { domain = "api.github.com"; path = "/graphql"; }
  splitKey =
    k:
    let
      m = match "([^/]+)(/.*)?" k;
    in
    if k == "" || m == null then
      fail "allowedDomains" "'${k}' is not a domain or domain/path"
    else
      {
        domain = builtins.elemAt m 0;
        path = builtins.elemAt m 1;
      };

  domainEntry =
    k: v:
    let
      key = splitKey k;
      pathPart = if key.path == null then "" else " path = ${quote key.path};";
      methods =
        if v == "*" then
          null
        else if isList v then
          (if v == [ ] then fail "allowedDomains" "'${k}': empty method list (omit the entry instead)" else v)
        else
          fail "allowedDomains" "'${k}': expected \"*\" or a list of methods";
    in
    if methods == null && key.path == null then
      quote key.domain
    else
      "{ domain = ${quote key.domain};${pathPart}"
      + (if methods == null then "" else " methods = [ ${concatStringsSep ", " (map (method k) methods)} ];")
      + " }";

  domains =
    if isList allowedDomains then
      map (d: domainEntry (nonEmptyStr "allowedDomains" d) "*") allowedDomains
    else if isAttrs allowedDomains then
      map (k: domainEntry k allowedDomains.${k}) (attrNames allowedDomains)
    else
      fail "allowedDomains" "expected null, a list of domains or an attrset, got ${typeOf allowedDomains}";

  publishedPort =
    p:
    if isInt p then
      port "publishedPorts" p
    else if isAttrs p then
      let
        extra = filter (k: k != "port" && k != "bindAddr") (attrNames p);
      in
      if extra != [ ] then
        fail "publishedPorts" "unknown key '${builtins.head extra}' (use port and bindAddr)"
      else if !(p ? port) then
        fail "publishedPorts" "an entry needs a port"
      else
        "{ port = ${port "publishedPorts" p.port};"
        + (
          if p ? bindAddr then
            let
              a = nonEmptyStr "publishedPorts.bindAddr" p.bindAddr;
            in
            if match "[0-9]{1,3}(\\.[0-9]{1,3}){3}" a != null then
              " bind = ${quote a};"
            else
              fail "publishedPorts" "bindAddr '${a}' is not an IPv4 address"
          else
            ""
        )
        + " }"
    else
      fail "publishedPorts" "entries are a port number or { port; bindAddr; }";

  engines = filter (
    e: if elem e [ "chromium" "firefox" ] then true else fail "allowHeadlessBrowsers" "unknown engine '${toString e}' (chromium, firefox)"
  ) (listArg "allowHeadlessBrowsers" allowHeadlessBrowsers);

  # plugins: { git = { protect = true; }; my-plugin = { level = 3; }; }.
  # allowNix and allowHeadlessBrowsers fill in nix.allow and browsers.engines;
  # explicit plugins.* values win. The nix group is always written: it loads
  # the nix plugin, which exposes only the store closures of the packages.
  pluginsArg = if isAttrs plugins then plugins else fail "plugins" "expected an attrset of plugin groups";
  builtinPlugins = {
    nix = {
      allow = boolArg "allowNix" allowNix;
    };
  } // (if engines == [ ] then { } else { browsers = { engines = engines; }; });
  allPlugins =
    builtinPlugins
    // builtins.mapAttrs (
      n: g:
      if isAttrs g then (builtinPlugins.${n} or { }) // g else fail "plugins.${n}" "expected an attrset"
    ) pluginsArg;

  pluginValue =
    where: v:
    if isBool v then
      bool v
    else if isInt v then
      toString v
    else if isString v then
      quote v
    else if isList v then
      (
        if builtins.all isString v then
          seq "[" "]" (map quote v)
        else if builtins.all isInt v then
          seq "[" "]" (map toString v)
        else
          fail where "lists must hold only strings or only integers"
      )
    else
      fail where "unsupported value of type ${typeOf v}";

  pluginGroup =
    n: g:
    "  ${settingName "plugins" n}: {"
    + concatStringsSep "" (
      map (k: " ${settingName "plugins.${n}" k} = ${pluginValue "plugins.${n}.${k}" g.${k}};") (attrNames g)
    )
    + " };";

  envArg = if isAttrs env then env else fail "env" "expected an attrset";

  # network.credentials: attrsets with the config's keys, in camelCase where
  # they have two words (valueFile).
  credentialKeys = {
    name = "name";
    value = "value";
    valueFile = "value_file";
    domains = "domains";
    paths = "paths";
    header = "header";
    bearer = "bearer";
    basic = "basic";
    query = "query";
    env = "env";
    file = "file";
    prefix = "prefix";
    add = "add";
    guard = "guard";
    oauth = "oauth";
  };
  credentialValue =
    where: k: v:
    if elem k [ "domains" "paths" ] then
      strList where v
    else if elem k [ "bearer" "add" "guard" ] then
      bool (boolArg where v)
    else
      quote (nonEmptyStr where v);
  credential =
    c:
    let
      bad = filter (k: !(credentialKeys ? ${k})) (attrNames c);
    in
    if !isAttrs c then
      fail "credentials" "entries are attrsets, got ${typeOf c}"
    else if bad != [ ] then
      fail "credentials" "unknown key '${builtins.head bad}' (${concatStringsSep ", " (attrNames credentialKeys)})"
    else if !(c ? domains) then
      fail "credentials" "an entry needs domains (where the secret may go)"
    else
      "{"
      + concatStringsSep "" (
        map (k: " ${credentialKeys.${k}} = ${credentialValue "credentials.${k}" k c.${k}};") (attrNames c)
      )
      + " }";
  credentialList = listArg "credentials" credentials;

  optional = c: l: if c then l else [ ];

  # Checked here too (the nix plugin refuses at launch anyway): the agent
  # reaches the daemon over a unix socket.
  nixAllowed = allPlugins.nix.allow or false;
  checked =
    if nixAllowed == true && !(boolArg "allowUnixSockets" allowUnixSockets) then
      fail "allowNix" "needs allowUnixSockets = true: the agent talks to nix-daemon over its unix socket"
    else
      true;

  lines =
    [
      "# Generated by agentsandbox's Nix renderer (nix/render-config.nix)."
      "sandbox: {"
      "  name = ${quote (nonEmptyStr "outName" name)};"
      "  command = ${quote (nonEmptyStr "command" command)};"
      "  args = ${strList "args" args};"
    ]
    ++ optional (backend != null) [ "  backend = ${quote (nonEmptyStr "backend" backend)};" ]
    ++ optional (workspaceDir != null) [ "  workspace = ${quote (nonEmptyStr "workspaceDir" workspaceDir)};" ]
    ++ [
      "  packages = ${strList "allowedPackages" packages};"
      "  rw_dirs = ${strList "rwDirs" rwDirs};"
      "  rw_files = ${strList "rwFiles" rwFiles};"
      "  ro_dirs = ${strList "roDirs" roDirs};"
      "  ro_files = ${strList "roFiles" roFiles};"
      "  env = {"
    ]
    ++ map (k: "    ${envName "env" k} = ${quote (strArg "env.${k}" envArg.${k})};") (attrNames envArg)
    ++ [ "  };" ]
    # Names whose values --show-config and launch.log may print (the rest are
    # redacted): only names set in env mean anything.
    ++ optional (listArg "publicEnv" publicEnv != [ ]) [
      "  public_env = ${seq "[" "]" (map (k: quote (envName "publicEnv" k)) (listArg "publicEnv" publicEnv))};"
    ]
    ++ [
      "};"
      "network: {"
    ]
    ++ optional (allowedDomains != null) [
      "  allowed_domains = ${seq "(" ")" domains};"
    ]
    ++ optional (credentialList != [ ]) [
      (
        if allowedDomains == null then
          fail "credentials" "need allowedDomains: only the filtering proxy can put them into requests"
        else
          "  credentials = ${seq "(" ")" (map credential credentialList)};"
      )
    ]
    ++ optional (listArg "guardFiles" guardFiles != [ ]) [ "  guard_files = ${strList "guardFiles" guardFiles};" ]
    ++ [
      (
        if allowedHostPorts == null && allowedDomains != null then
          fail "allowedHostPorts" "null (every host port) needs open internet; with allowedDomains set, list the ports"
        else if allowedHostPorts == null then
          "  host_ports = \"all\";"
        else
          "  host_ports = ${seq "[" "]" (map (port "allowedHostPorts") (listArg "allowedHostPorts" allowedHostPorts))};"
      )
      "  published_ports = ${seq "(" ")" (map publishedPort (listArg "publishedPorts" publishedPorts))};"
      "  unix_sockets = ${bool (boolArg "allowUnixSockets" allowUnixSockets)};"
      "};"
      "plugins: {"
    ]
    ++ map (n: pluginGroup n allPlugins.${n}) (attrNames allPlugins)
    ++ [ "};" ];
in
builtins.seq checked (concatStringsSep "\n" lines + "\n")
