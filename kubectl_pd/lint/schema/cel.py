"""CEL rules of a CRD, compiled once and evaluated with cel-expr-python (imported on first use).

cel-expr-python is Google's CEL runtime (cel-cpp) with a Python binding and no dependencies. In
`bench/bench_lint.py --compare-cel` it evaluates Kueue's three resource-group/preemption rules for a 64-flavor
queue in about 0.6 ms, against about 6 ms for common-expression-language and 150 ms for
cel-python. Kubernetes' quantity and lists libraries (quantity(), isSorted(), ...) are declared into
it from `k8s_cel`; the rest (url(), ip(), cidr(), format, authz) are not, and a rule that uses them
fails to compile and is reported as not evaluated.
"""

from __future__ import annotations

from typing import Any

from kubectl_pd import memo

COMPILED = "lint.schema.cel.compiled"  # the run's memo (kubectl_pd/memo.py): rule -> expression or error text
_env: Any = None  # the CEL environment, built on first use: constant declarations, no answer of any run


def _environment() -> Any:
    global _env
    if _env is None:
        from cel_expr_python import cel  # noqa: PLC0415 - lazy: kept off the startup path

        from kubectl_pd.lint.schema.k8s_cel import declarations  # noqa: PLC0415

        _env = cel.NewEnv(variables={"self": cel.Type.DYN}, functions=declarations(cel))
    return _env


def available() -> str | None:
    """None when the CEL runtime can be loaded, else why not."""
    try:
        _environment()
    except ImportError as e:  # the wheel is missing for this platform
        return f"the CEL runtime (cel-expr-python) is not installed: {e}"
    return None


COMPILE = "compile"
RUNTIME = "runtime"


def evaluate(rule: str, value: Any) -> tuple[bool | None, str, str]:
    """(True|False, "", "") for a rule that ran; (None, why, COMPILE|RUNTIME) when it could not run.

    A runtime error (a field the rule reads is absent) matters only when the schema found nothing:
    the API server refuses an object with schema errors before its CEL verdict counts.
    """
    missing = available()
    if missing:
        return None, missing, COMPILE
    compiled = memo.table(COMPILED)
    expr = compiled.get(rule) if compiled is not None else None
    if expr is None:
        try:
            expr = _environment().compile(rule)
        except RuntimeError as e:
            expr = str(e).splitlines()[0]
        if compiled is not None:
            memo.put(compiled, rule, expr, 4096)
    if isinstance(expr, str):
        return None, expr, COMPILE
    try:
        result = expr.eval(data={"self": value})
    except (RuntimeError, TypeError, ValueError) as e:
        return None, str(e).splitlines()[0], RUNTIME
    got = result.value()
    if isinstance(got, bool):
        return got, "", ""
    return None, (str(got).splitlines()[0] if got is not None else "no result"), RUNTIME
