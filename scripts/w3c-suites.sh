#!/usr/bin/env bash
# The W3C verifier suites run as written against `npm start` of this checkout (docs/testing.md "W3C suites run as
# written"). Not part of `npm test` or CI: the install step needs the npm registry, and the suites' own code is
# never copied into this repository.
#
#   scripts/w3c-suites.sh install SRC WORK   # outside any network namespace: it needs the npm registry
#   scripts/w3c-suites.sh run WORK           # starts `npm start` on a fresh data directory, runs every suite
#                                            # against it, stops it, prints the summary (no network needed)
#   scripts/w3c-suites.sh summary WORK       # the summary of the last run again
#
# SRC holds git repositories (clones or bare mirrors, any location) named after the GitHub repositories:
#   vc-di-eddsa-test-suite, vc-di-ecdsa-test-suite, vc-data-model-2.0-test-suite   (github.com/w3c/…)
#   vc-api-verifier-test-suite, data-integrity-test-suite-assertion                 (github.com/w3c-ccg/…)
#   vc-test-suite-implementations       (w3c's: the one the data-integrity and data-model suites name)
#   ccg-vc-test-suite-implementations   (w3c-ccg's: the one vc-api-verifier-test-suite names)
#   vc-di-ecdsa                         (w3c's spec repository: vc-di-ecdsa-test-suite's postinstall clones it
#                                        into tests/input for its test vectors)
# e.g. for r in w3c/vc-di-eddsa-test-suite …; do git clone https://github.com/$r SRC/${r#*/}; done
# (and `git clone https://github.com/w3c-ccg/vc-test-suite-implementations SRC/ccg-vc-test-suite-implementations`).
#
# What `install` changes in the suites, and nothing else: each suite's `github:` dependencies
# (vc-test-suite-implementations, data-integrity-test-suite-assertion) are pointed at the local clones in SRC
# (`npm pkg set … file:…`, installed with --install-links so they sit in node_modules as npm would put them),
# for a machine that reaches the npm registry but not GitHub; the ECDSA vectors are copied where the suite's
# postinstall would clone them; a suite's package-lock.json loses its entries for the two github: dependencies
# and for a version the registry no longer has. Then each suite gets the documented `localConfig.cjs` (vc-test-suite-implementations
# README, "Testing locally") naming this verifier alone.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
SUITES=(vc-di-eddsa-test-suite vc-di-ecdsa-test-suite vc-api-verifier-test-suite vc-data-model-2.0-test-suite)
PORT=${CV_W3C_PORT:-3000}
BASE_URL="http://127.0.0.1:$PORT"
ISSUER_PORT=${CV_W3C_ISSUER_PORT:-4100}
ISSUER_URL="http://127.0.0.1:$ISSUER_PORT"
# The operator's contexts folder the run gives the verifier: the suites' credentials use the examples context
# (https://www.w3.org/ns/credentials/examples/v2), which the verifier does not bundle.
CONTEXTS=$REPO/contract-tests/fixtures/jsonld-contexts
SUITE_PATH=${W3C_SUITES_NODE_DIR:+$W3C_SUITES_NODE_DIR:}$PATH

die() { echo "w3c-suites: $*" >&2; exit 2; }

clone() { # clone SRC/NAME into WORK/NAME at the source's HEAD, once
  local src=$1 dst=$2
  [ -d "$src" ] || die "$src is missing (see the header of $0)"
  [ -d "$dst" ] || git clone -q "$src" "$dst"
  echo "$(basename "$dst") $(git -C "$dst" rev-parse --short HEAD)"
}

local_config() { # each suite's localConfig.cjs: this verifier and the stand-in issuer, every tag the suites filter on
  cat <<'EOF'
// Written by credential-vault scripts/w3c-suites.sh: credential-vault's verifiers at BASE_URL, and the stand-in
// issuer (scripts/w3c-suite-issuer.ts, digitalbazaar's libraries) at ISSUER_URL.
const baseUrl = process.env.BASE_URL || 'http://127.0.0.1:3000';
const issuerUrl = process.env.ISSUER_URL || 'http://127.0.0.1:4100';
// vc-data-model-2.0-test-suite takes an issuer's answer as the credential itself; the others read
// {verifiableCredential} (VC API).
const bare = __dirname.endsWith('vc-data-model-2.0-test-suite') ? 'bare/' : '';
const issuer = (cryptosuite, curve, tags) => ({
  id: `urn:w3c-suite-issuer:${cryptosuite}:${curve}`,
  endpoint: `${issuerUrl}/issuers/${cryptosuite}/${curve}/${bare}credentials/issue`,
  ...(curve === 'Ed25519' ? {} : {supportedEcdsaKeyTypes: [curve]}),
  supports: {vc: ['1.1', '2.0']},
  tags
});
module.exports = {
  // Interop on: the Data Integrity suites' interop tests are where a verifier checks what an issuer made (the only
  // eddsa-jcs-2022 verifier tests); testAllImplementations off: no other implementation is called.
  settings: {enableInteropTests: true, testAllImplementations: false},
  implementations: [{
    name: 'credential-vault',
    implementation: 'credential-vault vault API',
    issuers: [
      issuer('eddsa-rdfc-2022', 'Ed25519', ['eddsa-rdfc-2022', 'vc2.0']),
      issuer('eddsa-jcs-2022', 'Ed25519', ['eddsa-jcs-2022']),
      issuer('ecdsa-rdfc-2019', 'P-256', ['ecdsa-rdfc-2019']),
      issuer('ecdsa-rdfc-2019', 'P-384', ['ecdsa-rdfc-2019']),
      issuer('ecdsa-jcs-2019', 'P-256', ['ecdsa-jcs-2019']),
      issuer('ecdsa-jcs-2019', 'P-384', ['ecdsa-jcs-2019'])
    ],
    verifiers: [{
      id: 'urn:credential-vault:verifier',
      endpoint: `${baseUrl}/credentials/verify`,
      supportedEcdsaKeyTypes: ['P-256', 'P-384'],
      supports: {vc: ['1.1', '2.0']},
      tags: ['eddsa-rdfc-2022', 'eddsa-jcs-2022', 'ecdsa-rdfc-2019', 'ecdsa-jcs-2019', 'vc-api', 'vc2.0']
    }],
    vpVerifiers: [{
      id: 'urn:credential-vault:presentation-verifier',
      endpoint: `${baseUrl}/presentations/verify`,
      supports: {vc: ['2.0']},
      tags: ['vc2.0']
    }]
  }]
};
EOF
}

install() {
  local src=$1 work=$2
  mkdir -p "$work"
  src=$(cd "$src" && pwd)
  work=$(cd "$work" && pwd)
  : >"$work/versions.txt"
  for dep in data-integrity-test-suite-assertion vc-test-suite-implementations ccg-vc-test-suite-implementations vc-di-ecdsa; do
    clone "$src/$dep" "$work/$dep" >>"$work/versions.txt"
  done
  for s in "${SUITES[@]}"; do
    clone "$src/$s" "$work/$s" >>"$work/versions.txt"
    (
      cd "$work/$s"
      local impl=$work/vc-test-suite-implementations
      [ "$s" = vc-api-verifier-test-suite ] && impl=$work/ccg-vc-test-suite-implementations
      npm pkg set "dependencies.vc-test-suite-implementations=file:$impl"
      if grep -q '"data-integrity-test-suite-assertion"' package.json; then
        npm pkg set "dependencies.data-integrity-test-suite-assertion=file:$work/data-integrity-test-suite-assertion"
      fi
      # A lock file pins the github: dependencies to GitHub tarballs, and vc-di-ecdsa-test-suite's pins
      # @digitalbazaar/did-io 2.2.0, which the registry no longer serves (404): those entries (and what they hold) go, the rest stays.
      if [ -f package-lock.json ]; then
        node -e 'const fs = require("fs"); const lock = JSON.parse(fs.readFileSync("package-lock.json", "utf8"));
          for (const [k, v] of Object.entries(lock.packages ?? {}))
            if (/^(git\+|github:)|codeload\.github\.com/.test(v.resolved ?? "") ||
              /\/@digitalbazaar\/did-io\/-\/did-io-2\.2\.0\.tgz$/.test(v.resolved ?? ""))
              for (const n of Object.keys(lock.packages)) if (n === k || n.startsWith(`${k}/`)) delete lock.packages[n];
          fs.writeFileSync("package-lock.json", JSON.stringify(lock, null, 2) + "\n");'
      fi
      if [ "$s" = vc-di-ecdsa-test-suite ] && [ ! -e tests/input/vc-di-ecdsa ]; then
        mkdir -p tests/input && cp -r "$work/vc-di-ecdsa" tests/input/vc-di-ecdsa
      fi
      echo "w3c-suites: npm install in $s" >&2
      npm install --install-links --no-audit --no-fund >"$work/$s.install.log" 2>&1 ||
        die "npm install failed in $s: see $work/$s.install.log"
      local_config >localConfig.cjs
    )
  done
  cat "$work/versions.txt"
}

summary() { # from each suite's reports/index.json (the interop reporter prints no mocha totals)
  local work=$1 s
  for s in "${SUITES[@]}"; do
    [ -f "$work/$s/reports/index.json" ] || continue
    echo "== $s"
    node -e '
      const report = require(process.argv[1]);
      // Each matrix lists its tests as rows of cells (an interop matrix has no other listing); "At Risk"
      // summarises tests listed elsewhere. A table keeps mocha suites.
      const tests = [];
      const walk = (suite, path) => {
        for (const t of suite.tests ?? []) tests.push({ t, path: [...path, t.title] });
        for (const child of suite.suites ?? []) walk(child, [...path, child.title]);
      };
      for (const m of report.matrices ?? []) {
        if (m.title === "At Risk") continue;
        for (const row of m.rows ?? []) for (const t of row.cells ?? []) if (t?.type === "test") tests.push({ t, path: [m.title, t.title], v: m.columnLabel === "Verifier" });
      }
      for (const table of report.tables ?? []) walk(table, [table.title]);
      // A test "calls a verifier" when it sits in a matrix of verifiers or its code posts to one.
      const calls = (body) => /verifyVp\(|\.verify\(|verifier\.post|verificationFail|verificationSuccess|verifySuccess|verifyError|shouldRejectEitherIssueOrVerify/.test(body ?? "");
      const count = {};
      const callsVerifier = ({ t, v }) => v || calls(t.body);
      for (const test of tests) {
        const { t } = test;
        const k = `${t.state ?? (t.pending ? "pending" : "not run")} (${callsVerifier(test) ? "verifier" : "issuer only"})`;
        count[k] = (count[k] ?? 0) + 1;
      }
      console.log(Object.entries(count).map(([k, v]) => `${v} ${k}`).join(", ") || "no tests ran");
      for (const test of tests)
        if (test.t.state !== "passed")
          console.log(`  ${test.t.state ?? "not run"} [${callsVerifier(test) ? "verifier" : "issuer only"}]: ${test.path.join(" > ")}\n      ${(test.t.err?.message ?? "").slice(0, 300).replace(/\n/g, " ")}`);
    ' "$work/$s/reports/index.json"
  done
}

run() {
  local work
  work=$(cd "$1" && pwd)
  data=$(mktemp -d) # global: the EXIT trap removes it
  # A fresh product on the simulator. The suites call the verifiers without an API key, and a keyless client
  # gets 30 verifications per rate-limit window (CV_KEYLESS_RATE_LIMIT): 1,000 per second lets the suites through.
  (
    cd "$REPO"
    export PATH=$REPO/node_modules/.bin:$PATH
    CV_DATA_DIR=$data CV_RATE_WINDOW_MS=1000 CV_KEYLESS_RATE_LIMIT=1000 CV_TESTNET_PORT=$PORT CV_JSONLD_CONTEXTS_DIR=$CONTEXTS \
      LOG_LEVEL=warn exec npm start
  ) >"$work/product.log" 2>&1 &
  product=$!
  "$REPO/node_modules/.bin/node" "$REPO/scripts/w3c-suite-issuer.ts" "$ISSUER_PORT" "$CONTEXTS" >"$work/issuer.log" 2>&1 &
  issuer=$!
  trap 'kill $product $issuer 2>/dev/null; wait $product $issuer 2>/dev/null || true; rm -rf "$data"' EXIT
  # Ready once is enough: on a loaded machine a later /ready may miss its 2-second check timeout (503).
  local ready=''
  for _ in $(seq 1 240); do
    if curl -sf "$BASE_URL/ready" >/dev/null 2>&1; then ready=1 && break; fi
    kill -0 $product 2>/dev/null || die "npm start stopped: see $work/product.log"
    sleep 0.5
  done
  [ -n "$ready" ] || die "npm start was not ready within 2 minutes: see $work/product.log"
  for s in "${SUITES[@]}"; do
    echo "w3c-suites: $s" >&2
    local_config >"$work/$s/localConfig.cjs"
    rm -f "$work/$s/reports/index.json" # no summary of an earlier run
    # `npm test` as the suite's README says, on the system's Node (W3C_SUITES_NODE_DIR puts another first):
    # under Node 24, vc-di-eddsa-test-suite stops at import (tests/vc-generator/contexts.js structuredClones a
    # context entry that holds a URL object); --ignore-scripts skips the ECDSA suite's `pretest`
    # (`npm update vc-test-suite-implementations`, which would fetch from GitHub again).
    (cd "$work/$s" && PATH=$SUITE_PATH BASE_URL=$BASE_URL ISSUER_URL=$ISSUER_URL npm test --ignore-scripts) >"$work/$s.run.log" 2>&1 || true
    sleep 1 # the keyless rate-limit window (1 s) empties before the next suite's requests
  done
  summary "$work"
}

case "${1:-}" in
  install) [ $# -eq 3 ] || die "usage: $0 install SRC WORK"; install "$2" "$3" ;;
  run) [ $# -eq 2 ] || die "usage: $0 run WORK"; run "$2" ;;
  summary) [ $# -eq 2 ] || die "usage: $0 summary WORK"; summary "$2" ;;
  *) die "usage: $0 install SRC WORK | run WORK | summary WORK" ;;
esac
