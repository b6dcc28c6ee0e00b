"""One row per access site of a `warplens run --per-site --json` result: the model's requests and
sectors (global) or wavefronts (shared) beside the measured ones, and the reason for a
difference. Shared by the ladder summaries."""


def print_site_rows(label, result, error="no output"):
    if not result:
        print("%-16s run failed: %s" % (label, error))
        return
    counts = result.get("site_counts", {})
    if not counts.get("available"):
        print("%-16s no per-site figures: %s" % (label, counts.get("reason")))
        return
    for site, m in zip(result["sites"], counts["sites"]):
        glob = site["space"] == "global"
        pred = site["sectors"] if glob else site["wavefronts"]
        meas = m["sectors"] if glob else m["wavefronts"]
        print("%-16s %-22s %5d req %11d %11.0f %+6.1f%%  %s %11d %11.0f %+6.1f%% %s" % (
            label, site["name"], m["line"], site["requests"], m["executed"],
            100 * m["request_difference"], "sect" if glob else "wave", pred, meas,
            100 * m["difference"], m["reason"]))
