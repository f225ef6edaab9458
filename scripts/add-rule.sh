#!/usr/bin/env bash
# Scaffolds a new finding rule (the model: ruff's scripts/add_rule.py):
#   bash scripts/add-rule.sh AREA "Title of the rule"      AREA: KH KV KQ KM KR KS KB KL
#   bash scripts/add-rule.sh --code KQ060 AREA "Title"      a code of your choosing (free, of AREA)
# writes, in the repository it runs in ($KGADVISE_ROOT, else this script's repository):
#   1. a [[rule]] stub in the rules file that holds the area's codes (rules/<area>.toml), with the next free
#      code: one above the area's highest; every text says TODO, so core/build.rs accepts it and a reader
#      sees what is left;
#   2. a function stub at the end of the core module that emits the area's highest code today (the
#      module whose rules it sits beside), adding a `rule::<CODE>` finding;
#   3. tests/fixtures/rules/<CODE>.toml: a case where it fires and one where it must not, with the
#      command of the area's latest fixture and TODO requests.
# Then: fill in the TOML texts, give the function its context and call it beside the module's other rules,
# write the two requests, and bless the snapshot (CONTRIBUTING.md, "Add a rule").
set -euo pipefail

code=""
if [ "${1:-}" = "--code" ]; then
  code="${2:?--code needs a code like KQ060}"
  shift 2
fi
area="${1:-}"
title="${2:-}"
if [ -z "$area" ] || [ -z "$title" ] || [ $# -ne 2 ]; then
  echo "usage: bash scripts/add-rule.sh [--code KX0NN] AREA \"Title of the rule\"  (AREA: KH KV KQ KM KR KS KB KL)" >&2
  exit 2
fi
case "$area" in
  KH | KV | KQ | KM | KR | KS | KB | KL) ;;
  *) echo "add-rule.sh: unknown area '$area'; expected one of KH KV KQ KM KR KS KB KL" >&2; exit 2 ;;
esac
case "$title" in
  *'"'* | *'\'*) echo "add-rule.sh: a title without quotes or backslashes, please" >&2; exit 2 ;;
esac

root="${KGADVISE_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}"
cd "$root"

# The area's codes as the rule book has them: `id = "KQ014"` lines of rules/*.toml.
codes="$(grep -ho "^id = \"$area[0-9][0-9][0-9]\"" rules/*.toml | grep -o "$area[0-9]*" | sort -u)"
if [ -z "$codes" ]; then
  echo "add-rule.sh: no $area rule in rules/*.toml" >&2
  exit 1
fi
highest="$(printf '%s\n' "$codes" | tail -n 1)"
if [ -z "$code" ]; then
  code="$(printf '%s%03d' "$area" $((10#${highest#"$area"} + 1)))"
fi
if ! [[ "$code" =~ ^${area}[0-9]{3}$ ]]; then
  echo "add-rule.sh: $code is not a code of $area (expected ${area}NNN)" >&2
  exit 2
fi
if printf '%s\n' "$codes" | grep -qx "$code"; then
  echo "add-rule.sh: $code is taken" >&2
  exit 1
fi

rules_file="$(grep -l "^id = \"$highest\"" rules/*.toml | head -n 1)"
module="$(grep -rl "rule::$highest\b" core/src | xargs grep -l "Findings" | head -n 1 || true)"
if [ -z "$module" ]; then
  echo "add-rule.sh: no module of core/src emits $highest into Findings" >&2
  exit 1
fi
neighbour="tests/fixtures/rules/$highest.toml"
command="$(grep -m 1 '^command = ' "$neighbour" 2>/dev/null | sed 's/^command = //' || true)"
[ -n "$command" ] || command='"TODO"'
fixture="tests/fixtures/rules/$code.toml"
[ -e "$fixture" ] && { echo "add-rule.sh: $fixture exists" >&2; exit 1; }

# A function name from the title: lower case, words joined by `_`, at most six words.
fn_name="$(printf '%s' "$title" | tr '[:upper:]' '[:lower:]' | tr -c 'a-z0-9' ' ' |
  awk '{ n = NF < 6 ? NF : 6; s = $1; for (i = 2; i <= n; i++) s = s "_" $i; print s }')"
case "$fn_name" in [0-9]* | "") fn_name="rule_$fn_name" ;; esac
today="$(date -u +%Y-%m-%d)"

cat >> "$rules_file" <<EOF

[[rule]]
id = "$code"
title = "$title"
severity = "info"
what = "TODO: when it fires, exactly (the inputs and the thresholds)."
why = "TODO: why it matters to the user (what goes wrong otherwise)."
example = "TODO: an input that fires it."
fix = "TODO: what to do."
thresholds = []
source = "TODO: the seed section or URL that says so"
as_of = "$today"
EOF

stub="$(cat <<EOF
/// $code: $title.
/// Scaffolded by scripts/add-rule.sh: give it the advisor's context, call it beside the other rules, put
/// the specifics in the evidence (the title is always the rule book's), and drop the allow.
#[allow(dead_code)]
fn $fn_name(out: &mut Findings) {
    out.add(rule::$code, "TODO: the evidence: what was seen, with its numbers");
}
EOF
)"
# Before the module's tests (clippy's items_after_test_module), else at its end.
tests_at="$(grep -n '^#\[cfg(test)\]' "$module" | tail -n 1 | cut -d: -f1 || true)"
if [ -n "$tests_at" ]; then
  { head -n $((tests_at - 1)) "$module"; printf '%s\n\n' "$stub"; tail -n +"$tests_at" "$module"; } > "$module.new"
  mv "$module.new" "$module"
else
  printf '\n%s\n' "$stub" >> "$module"
fi

cat > "$fixture" <<EOF
# $code: $title

[[case]]
name = "TODO: a request where it fires"
fires = true
command = $command
request = {}

[[case]]
name = "TODO: the nearest request where it must not fire"
fires = false
command = $command
request = {}
EOF

echo "$code: $title"
echo "  $rules_file   the rule's doc (fill in the TODOs; its numbers as [[threshold]]/[[fact]] entries)"
echo "  $module   fn $fn_name (call it beside the other rules)"
echo "  $fixture   fires / must not fire"
echo "next: cargo test -p kgadvise-tests --test rule_fixtures -- $code, then bless the snapshot:"
echo "  INSTA_UPDATE=always cargo test -p kgadvise-tests --test rule_fixtures (review the .snap diff),"
echo "  and regenerate docs/rules.md and web/rules-prose.json: KGADVISE_BLESS=1 cargo test -p kgadvise-tests --test rules_data"
