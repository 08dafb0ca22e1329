#!/usr/bin/env bash
# Runs ringside load from N pods of a Kubernetes Indexed Job (load-job.yaml) and merges their
# results (docs/distributed.md, "Kubernetes"): fills the template with a start instant far enough
# ahead for every pod to be scheduled and pull its image, applies it with kubectl, waits (bounded)
# for the Job to finish, saves each pod's log and its JSON result, and runs `ringside merge`.
#
#   deploy/k8s/run-job.sh --image IMAGE --url URL --rate R [options]
#
#   --image IMAGE        the image of build-image.sh, present on the nodes (required)
#   --url URL            the target as the pods reach it (required)
#   --rate R             requests/s over all pods (required)
#   --generators N       pods (default 2)
#   --duration D         measured time (default 30s)
#   --connections C      connections over all pods (default 50 per pod)
#   --threads T          threads and CPUs requested per pod (default 1)
#   --lead S             seconds from now to the start instant (default 30)
#   --slack S            seconds beyond lead + duration before the Job counts as hung (default 120)
#   --name NAME          the Job's name (default ringside-load-<start instant>)
#   --namespace NS       kubectl's namespace (default: the context's)
#   --results DIR        where the logs, results and merge go (default ./ringside-results/<NAME>)
#   --ringside PATH      the ringside that merges (default build/release/apps/ringside)
#   --keep               leave the Job and its pods in the cluster (default: deleted once collected)
#   --dry-run            print the filled manifest and stop (no kubectl needed)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
image="" url="" rate="" generators=2 duration=30s connections="" threads=1 lead=30 slack=120
name="" namespace="" results="" ringside="$root/build/release/apps/ringside" keep="" dry_run=""

die() {  # exit code, then one line saying what is wrong and what to do
  local code=$1
  shift
  echo "run-job: $*" >&2
  exit "$code"
}

while [ $# -gt 0 ]; do
  case "$1" in
    --image) image=${2:?}; shift 2 ;;
    --url) url=${2:?}; shift 2 ;;
    --rate) rate=${2:?}; shift 2 ;;
    --generators) generators=${2:?}; shift 2 ;;
    --duration) duration=${2:?}; shift 2 ;;
    --connections) connections=${2:?}; shift 2 ;;
    --threads) threads=${2:?}; shift 2 ;;
    --lead) lead=${2:?}; shift 2 ;;
    --slack) slack=${2:?}; shift 2 ;;
    --name) name=${2:?}; shift 2 ;;
    --namespace) namespace=${2:?}; shift 2 ;;
    --results) results=${2:?}; shift 2 ;;
    --ringside) ringside=${2:?}; shift 2 ;;
    --keep) keep=1; shift ;;
    --dry-run) dry_run=1; shift ;;
    -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) die 2 "unknown argument '$1' (see --help)" ;;
  esac
done

[ -n "$image" ] || die 2 "--image is required: the image deploy/k8s/build-image.sh printed"
[ -n "$url" ] || die 2 "--url is required: the target as the pods reach it, e.g. http://server.default.svc:8080/"
[[ $rate =~ ^[0-9]+(\.[0-9]+)?$ ]] || die 2 "--rate must be requests/s over all pods, e.g. 10000 (got '$rate')"
[[ $generators =~ ^[1-9][0-9]*$ ]] || die 2 "--generators must be a whole number from 1 (got '$generators')"
[[ $threads =~ ^[1-9][0-9]*$ ]] || die 2 "--threads must be a whole number from 1 (got '$threads')"
[[ $lead =~ ^[0-9]+$ ]] || die 2 "--lead must be whole seconds (got '$lead')"
[[ $slack =~ ^[0-9]+$ ]] || die 2 "--slack must be whole seconds (got '$slack')"
[ -n "$connections" ] || connections=$((50 * generators))
[[ $connections =~ ^[1-9][0-9]*$ ]] || die 2 "--connections must be a whole number (got '$connections')"
[ "$connections" -ge "$generators" ] ||
  die 2 "--connections $connections is fewer than --generators $generators: each pod needs one"
# The duration in whole seconds, for the Job's deadline (ringside itself checks the value).
case "$duration" in
  *ms) duration_s=1 ;;
  *s) duration_s=${duration%s} ;;
  *m) duration_s=$((${duration%m} * 60)) ;;
  *h) duration_s=$((${duration%h} * 3600)) ;;
  *) duration_s=$duration ;;
esac
duration_s=${duration_s%%.*}
[[ $duration_s =~ ^[0-9]+$ ]] || die 2 "--duration must be like 30s, 5m or 1h (got '$duration')"

start_at=$(( $(date +%s) + lead ))
[ -n "$name" ] || name="ringside-load-$start_at"
[[ $name =~ ^[a-z0-9]([-a-z0-9]{0,50}[a-z0-9])?$ ]] ||
  die 2 "--name must be lower-case letters, digits and '-', at most 52 (a Kubernetes name), got '$name'"

manifest=$("$here/render.sh" "$here/load-job.yaml" NAME="$name" IMAGE="$image" \
  GENERATORS="$generators" START_AT="$start_at" URL="$url" RATE="$rate" DURATION="$duration" \
  CONNECTIONS="$connections" THREADS="$threads" DEADLINE_S=$((lead + duration_s + slack)))
if [ -n "$dry_run" ]; then
  printf '%s\n' "$manifest"
  exit 0
fi

command -v kubectl >/dev/null || die 1 "kubectl is not installed (or not on PATH): install it, or use --dry-run and apply the manifest yourself"
[ -x "$ringside" ] || die 1 "no ringside at $ringside to merge with: run 'scripts/build release' or give --ringside"
kube=(kubectl)
[ -z "$namespace" ] || kube+=(--namespace "$namespace")
[ -n "$results" ] || results="ringside-results/$name"
mkdir -p "$results"
printf '%s\n' "$manifest" >"$results/job.yaml"

"${kube[@]}" apply -f "$results/job.yaml" >&2
echo "run-job: Job $name: $generators pods, $rate req/s over all for $duration from $(date -d "@$start_at" '+%F %T %Z') ($start_at)" >&2

# Bounded: the Job's own deadline (activeDeadlineSeconds) plus a minute for kubectl.
deadline=$(( $(date +%s) + lead + duration_s + slack + 60 ))
while :; do
  succeeded=0 failed=0
  read -r succeeded failed < <("${kube[@]}" get job "$name" \
    -o jsonpath='{.status.succeeded} {.status.failed}{"\n"}') || true
  succeeded=${succeeded:-0} failed=${failed:-0}
  if [ "$succeeded" -ge "$generators" ] || [ "$failed" -ne 0 ]; then break; fi
  if [ "$(date +%s)" -ge "$deadline" ]; then
    die 1 "Job $name not finished after $((lead + duration_s + slack + 60)) s ($succeeded of $generators pods done): see 'kubectl describe job $name'; raise --slack if the pods were slow to start"
  fi
  sleep 2
done

# Each pod's log, by its completion index. stdout and stderr come mixed in a log: the result is
# the JSON document (from its opening "{" line to its closing "}" line, as --json prints it).
status=0
while read -r pod index; do
  [ -n "$pod" ] || continue
  "${kube[@]}" logs "$pod" >"$results/share-$index.log" || status=1
  awk '/^\{$/ { on = 1 } on { print } /^\}$/ { on = 0 }' "$results/share-$index.log" \
    >"$results/share-$index.json"
  if [ ! -s "$results/share-$index.json" ]; then
    echo "run-job: pod $pod (share $index/$generators) left no result; its log, $results/share-$index.log, ends:" >&2
    tail -n 5 "$results/share-$index.log" >&2
    status=1
  fi
done < <("${kube[@]}" get pods -l "ringside-job=$name" \
  -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.annotations.batch\.kubernetes\.io/job-completion-index}{"\n"}{end}')

[ -n "$keep" ] || "${kube[@]}" delete job "$name" --wait=false >&2 || true
if [ "$failed" -ne 0 ] || [ "$status" -ne 0 ]; then
  # A merge of part of the load would look like a complete result.
  die 1 "$failed pod(s) of Job $name failed or left no result: not merging; the logs are in $results"
fi
shopt -s nullglob
jsons=("$results"/share-*.json)
[ "${#jsons[@]}" -eq "$generators" ] ||
  die 1 "found ${#jsons[@]} results for $generators pods in $results: not merging"
"$ringside" merge "${jsons[@]}" | tee "$results/merged.txt"
"$ringside" merge --json "${jsons[@]}" >"$results/merged.json"
echo "run-job: results in $results (merged.txt, merged.json, one share-K.json and .log per pod)" >&2
