import subprocess
import sys


def test_import_skillcheck_does_not_import_the_service_stack() -> None:
    code = (
        "import sys, skillcheck, skillcheck.records, skillcheck.serialization; "
        "print(sorted(m for m in sys.modules "
        "if m.split('.')[0] in {'litestar', 'api', 'sqlalchemy'}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
