"""Type stub of the compiled searches (_search.c beside it); see ``search.solve`` and
``search.best_score``, which call them and document the arguments."""

def solve(
    tableau: bytes,
    stock: bytes,
    waste: int,
    removed: int,
    wrap: bool,
    peaks: int,
    order: bytes,
    max_states: int,
    max_seconds: float,
    /,
) -> tuple[int, list[int], int]: ...
def best_score(
    tableau: bytes,
    stock: bytes,
    waste: int,
    removed: int,
    wrap: bool,
    peaks: int,
    order: bytes,
    run: int,
    win_bonus: int,
    until_end: bool,
    max_states: int,
    max_seconds: float,
    /,
) -> tuple[int, int, list[int], int]: ...
