"""What the scripts/eval checks (check_eval_*.py) share: the failure list, check(), and load() of
scripts/eval as a module (it has no .py suffix)."""
import importlib.machinery
import importlib.util

fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL: " + what)


def load(ev):
    loader = importlib.machinery.SourceFileLoader("scripts_eval", ev)
    spec = importlib.util.spec_from_loader("scripts_eval", loader)
    m = importlib.util.module_from_spec(spec)
    loader.exec_module(m)
    return m
