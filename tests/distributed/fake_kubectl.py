#!/usr/bin/python3
"""A stand-in for kubectl, for tests/distributed/test_k8s_run_job.py: just the calls run-job.sh
makes, with a Job's pods as local processes. `apply -f` starts one `ringside` per completion
index with the pod template's args ($(JOB_COMPLETION_INDEX) expanded, as the kubelet does), its
stdout and stderr in one log (as a container's log holds both); `get job` reports how many
exited 0 and how many not; `get pods` lists them with their index; `logs` prints a log.

FAKE_KUBE_DIR holds the state and a line per call (calls); RINGSIDE_BIN is what the pods run;
FAKE_KUBE_FAIL_INDEX makes that pod's ringside exit 2 (a bad flag)."""
import os
import subprocess
import sys

import yaml

STATE = os.environ["FAKE_KUBE_DIR"]


def pods():
    return sorted(int(name[4:-4]) for name in os.listdir(STATE) if name.startswith("pod-")
                  and name.endswith(".log"))


def apply(path):
    with open(path) as f:
        job = yaml.safe_load(f)
    container = job["spec"]["template"]["spec"]["containers"][0]
    fail = os.environ.get("FAKE_KUBE_FAIL_INDEX")
    for index in range(job["spec"]["completions"]):
        args = [a.replace("$(JOB_COMPLETION_INDEX)", str(index)) for a in container["args"]]
        if str(index) == fail:
            args.insert(1, "--no-such-flag")
        base = os.path.join(STATE, f"pod-{index}")
        # The exit code lands in pod-K.rc when the pod's process ends, after this call returns.
        process = subprocess.Popen(
            ["sh", "-c", '"$@" >"$0.log" 2>&1; echo $? >"$0.rc.tmp"; mv "$0.rc.tmp" "$0.rc"',
             base, os.environ["RINGSIDE_BIN"], *args], start_new_session=True)
        with open(os.path.join(STATE, "pids"), "a") as f:
            f.write(f"{process.pid}\n")
    print(f"job.batch/{job['metadata']['name']} created")


def exit_codes():
    codes = []
    for index in pods():
        rc = os.path.join(STATE, f"pod-{index}.rc")
        if os.path.exists(rc):
            with open(rc) as f:
                codes.append(int(f.read()))
    return codes


def main(argv):
    while argv[:1] == ["--namespace"]:
        argv = argv[2:]
    with open(os.path.join(STATE, "calls"), "a") as f:
        f.write(" ".join(argv) + "\n")
    if argv[:2] == ["apply", "-f"]:
        apply(argv[2])
    elif argv[:2] == ["get", "job"]:
        codes = exit_codes()
        succeeded, failed = codes.count(0), len(codes) - codes.count(0)
        # jsonpath prints nothing for a count the status does not have yet.
        print(f"{succeeded or ''} {failed or ''}")
    elif argv[:2] == ["get", "pods"]:
        for index in pods():
            print(f"load-{index}-x7k2p {index}")
    elif argv[:1] == ["logs"]:
        index = int(argv[1].split("-")[1])
        with open(os.path.join(STATE, f"pod-{index}.log")) as f:
            sys.stdout.write(f.read())
    elif argv[:2] == ["delete", "job"]:
        print(f"job.batch \"{argv[2]}\" deleted")
    else:
        print(f"fake kubectl: no such call: {argv}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
