#!/usr/bin/env python3
"""What NVML's power readings are on this GPU, beside its total-energy counter: idle 0.5 s, a
busy matrix-multiply loop (torch) for 2 s, idle 1 s, read every ~2 ms: the energy counter, the
instantaneous power field (186), the averaged one (185) and nvmlDeviceGetPowerUsage. Writes the
readings as CSV (stdout) and, on stderr, the counter's mean power over the busy second beside
each reading's mean there. Benchmarks only: which reading can check the energy counter."""
import ctypes
import sys
import threading
import time

import torch

nvml = ctypes.CDLL("libnvidia-ml.so.1")


class Field(ctypes.Structure):
    _fields_ = [("fieldId", ctypes.c_uint), ("scopeId", ctypes.c_uint),
                ("timestamp", ctypes.c_longlong), ("latencyUsec", ctypes.c_longlong),
                ("valueType", ctypes.c_int), ("nvmlReturn", ctypes.c_int),
                ("value", ctypes.c_ulonglong)]


assert nvml.nvmlInit_v2() == 0
device = ctypes.c_void_p()
assert nvml.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(device)) == 0


def field(fid):
    f = Field(fieldId=fid)
    if nvml.nvmlDeviceGetFieldValues(device, 1, ctypes.byref(f)) or f.nvmlReturn:
        return None
    # valueType 1: unsigned int, 4: unsigned long long; power in mW
    return (f.value & 0xffffffff if f.valueType == 1 else f.value) / 1e3


def energy():
    mj = ctypes.c_ulonglong()
    return mj.value if nvml.nvmlDeviceGetTotalEnergyConsumption(device, ctypes.byref(mj)) == 0 else None


def usage():
    mw = ctypes.c_uint()
    return mw.value / 1e3 if nvml.nvmlDeviceGetPowerUsage(device, ctypes.byref(mw)) == 0 else None


busy = threading.Event()
stop = threading.Event()


def work():
    a = torch.randn(8192, 8192, device="cuda")
    b = torch.randn(8192, 8192, device="cuda")
    torch.cuda.synchronize()
    while not stop.is_set():
        if busy.is_set():
            for _ in range(4):
                a @ b
            torch.cuda.synchronize()
        else:
            time.sleep(0.001)


threading.Thread(target=work, daemon=True).start()
time.sleep(1.0)  # torch's start-up
rows = []
t0 = time.monotonic()
while (t := time.monotonic() - t0) < 3.5:
    if 0.5 <= t < 2.5:
        busy.set()
    else:
        busy.clear()
    rows.append((t, energy(), field(186), field(185), usage()))
    time.sleep(0.002)
stop.set()
print("t,energy_mj,instant_w,average_w,usage_w")
for r in rows:
    print(",".join("" if v is None else f"{v:.4f}" if isinstance(v, float) else str(v) for v in r))
inside = [r for r in rows if 1.4 <= r[0] <= 2.4 and r[1] is not None]
if len(inside) > 2:
    counted = (inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0]) / 1e3
    means = [sum(r[i] for r in inside if r[i] is not None) / max(1, sum(r[i] is not None for r in inside))
             for i in (2, 3, 4)]
    print(f"busy 1.4-2.4 s: counter {counted:.1f} W; instant {means[0]:.1f} W, average field "
          f"{means[1]:.1f} W, usage {means[2]:.1f} W", file=sys.stderr)
