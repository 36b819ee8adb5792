#!/usr/bin/env python3
"""The suite's own rules, checked on the registered tests (ctest --show-only=json-v1), so that a new test
cannot quietly break them (docs/testing.md):
- every device test (label lavapipe) runs through tests/timed.sh, one timed device test at a time (RESOURCE_LOCK
  timed_device, first in ctest's order: COST 2000; alone, RUN_SERIAL, where its priority cannot be raised above
  its neighbour's), those named in ALONE alone and before all others (RUN_SERIAL, COST 3000), with a timeout (the
  exception named below, with its reason); a
  device test runs beside other device tests only with the label "beside" (it checks refusals, files and messages,
  never a measured value a starved host could move), and then it is named below as such and runs in ctest's
  session with the unit tests (VKOCC_BESIDE=1), which a timed test lowers while it runs, so that a test cannot
  lose its lock by a slip;
- no device test turns an exit status into a skip (SKIP_RETURN_CODE): a device test passes or fails.
usage: test_suite_rules.py CTEST BUILD_DIR"""
import json, os, shutil, subprocess, sys, tempfile

ctest, build = sys.argv[1], sys.argv[2]
# ctest run in the build folder rewrites its Testing/Temporary/LastTest.log, the very log of the ctest run this
# test is part of (a failure's output was lost so): the registered tests are read from a copy of the test files
with tempfile.TemporaryDirectory(prefix="vkocc-suite-rules-") as copy:
    for root, _, files in os.walk(build):
        if "CTestTestfile.cmake" in files:
            dst = os.path.join(copy, os.path.relpath(root, build))
            os.makedirs(dst, exist_ok=True)
            shutil.copy(os.path.join(root, "CTestTestfile.cmake"), dst)
    doc = json.loads(subprocess.run([ctest, "--show-only=json-v1"], cwd=copy, check=True, capture_output=True,
                                    text=True).stdout)
# device tests that measure nothing timed, with the reason (they may run beside others, at any priority)
UNTIMED = {"test_install_example": "builds and links the installed package; runs commands on fingerprints from tests/data"}
# device tests that run beside others (label "beside" in tests/CMakeLists.txt, with the reason there)
BESIDE = {"test_cli_conventions", "test_hostile", "test_hostile_tune", "test_tune_files_lvp", "test_cli_device_names",
          "test_cli_options", "test_fleet_lvp"}
# timed device tests that run alone and first (RUN_SERIAL, COST 3000), with the reason in tests/CMakeLists.txt
ALONE = {"test_calibrate_lvp", "test_probe_lvp_threads1", "test_probe_lvp_threads2", "test_shader_lvp",
         "test_shader_unmod", "test_race_lvp", "test_surface_lvp"}
# timed.sh raises a timed test above its neighbour only with root or CAP_SYS_NICE; without, it runs alone
# (GNU nice runs the command even where it cannot set the priority, warning only: so this reads the priority got)
RAISE = subprocess.run(["nice", "-n", "-40", "nice"], capture_output=True, text=True).stdout.strip() == "-20"
bad, device = [], 0
for t in doc["tests"]:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    if "lavapipe" not in props.get("LABELS", []):
        continue
    device += 1
    name, cmd = t["name"], t.get("command", [])
    if name in UNTIMED:
        continue
    if not cmd or not cmd[0].endswith("/timed.sh"):
        bad.append(f"{name}: does not run through tests/timed.sh ({cmd[0] if cmd else 'no command'})")
    beside = "beside" in props.get("LABELS", [])
    if beside != (name in BESIDE):
        bad.append(f"{name}: label beside {'set' if beside else 'missing'}, but {'not ' if name not in BESIDE else ''}named in BESIDE")
    locked = "timed_device" in (props.get("RESOURCE_LOCK") or [])
    serial = bool(props.get("RUN_SERIAL"))
    env = props.get("ENVIRONMENT") or []
    if beside and (locked or serial):
        bad.append(f"{name}: {'RESOURCE_LOCK timed_device' if locked else 'RUN_SERIAL'} with the label beside")
    if beside != ("VKOCC_BESIDE=1" in env):
        bad.append(f"{name}: {'beside, but not' if beside else 'not beside, but'} run in ctest's session (VKOCC_BESIDE=1)")
    if name in ALONE:
        if beside or locked or not serial or (props.get("COST") or 0) < 3000:
            bad.append(f"{name}: named in ALONE, but not RUN_SERIAL with COST 3000 (or beside, or locked)")
    elif not beside and RAISE:
        if not locked or serial:
            bad.append(f"{name}: not RESOURCE_LOCK timed_device (the priority can be raised here)")
        if (props.get("COST") or 0) < 2000:
            bad.append(f"{name}: COST {props.get('COST')}: a timed device test starts before the others (COST 2000)")
    elif not beside and (locked or not serial):
        bad.append(f"{name}: not RUN_SERIAL (the priority cannot be raised here: a timed test runs alone)")
    if not props.get("TIMEOUT"):
        bad.append(f"{name}: no TIMEOUT")
    if "SKIP_RETURN_CODE" in props:
        bad.append(f"{name}: SKIP_RETURN_CODE {props['SKIP_RETURN_CODE']} (a device test passes or fails)")
for name in sorted(ALONE - {t["name"] for t in doc["tests"]}):
    bad.append(f"{name}: named in ALONE, but no such test")
print(f"{device} device tests checked")
for b in bad:
    print("rule broken:", b)
if device < 20:
    print(f"rule broken: only {device} device tests found (expected the lavapipe suite)")
    sys.exit(1)
sys.exit(1 if bad else 0)
