#!/usr/bin/env bash
# Fills a manifest template of deploy/k8s (load-job.yaml, load-pod.yaml): every @KEY@ becomes the
# value of KEY=VALUE; a template holding @INDEX@ (the Pod variant) is written once per index, 0 to
# GENERATORS-1, as documents of one stream. Comment lines are left out. Prints the manifest on
# stdout; refuses a key the template does not have and a placeholder left unfilled.
#
#   deploy/k8s/render.sh TEMPLATE KEY=VALUE...
set -euo pipefail

die() {
  echo "render: $*" >&2
  exit 2
}

[ $# -ge 1 ] || die "usage: render.sh TEMPLATE KEY=VALUE... (see deploy/k8s/load-job.yaml)"
template=$1
shift
[ -r "$template" ] || die "cannot read the template $template"
body=$(grep -Ev '^[[:space:]]*#' "$template")

declare -A values=()
for pair in "$@"; do
  key=${pair%%=*}
  value=${pair#*=}
  [[ $pair == *=* && $key =~ ^[A-Z_]+$ ]] || die "'$pair' is not KEY=VALUE (KEY in capitals, as in @KEY@)"
  [[ $key != INDEX ]] || die "INDEX is not given: each document of $template gets its own"
  [[ $body == *"@$key@"* ]] || die "$template has no @$key@ (a misspelt key?)"
  # Every value lands inside a double-quoted YAML string or as a plain number.
  [[ $value != *[\"\\$'\n']* ]] || die "$key's value must not hold a double quote, a backslash or a newline"
  values[$key]=$value
done

for key in "${!values[@]}"; do
  body=${body//"@$key@"/"${values[$key]}"}
done

documents=()
if [[ $body == *"@INDEX@"* ]]; then
  generators=${values[GENERATORS]:-}
  [[ $generators =~ ^[1-9][0-9]*$ ]] || die "GENERATORS must be a whole number from 1 (got '$generators')"
  for ((index = 0; index < generators; ++index)); do
    documents+=("${body//"@INDEX@"/"$index"}")
  done
else
  documents=("$body")
fi

left=$(grep -Eo '@[A-Z_]+@' <<<"${documents[0]}" | sort -u | tr '\n' ' ' || true)
[ -z "$left" ] || die "no value for ${left% } in $template: give KEY=VALUE for each"

echo "# rendered from $(basename "$template") by deploy/k8s/render.sh"
for ((i = 0; i < ${#documents[@]}; ++i)); do
  [ "$i" -eq 0 ] || echo "---"
  printf '%s\n' "${documents[$i]}"
done
