/*
 * skillcheck.games.tripeaks._search: Tri Peaks' exact searches in C (optional accelerator).
 *
 * The same two searches as skillcheck/games/tripeaks/search.py (_solve_py and _best_py),
 * position for position: the same tables, the same children in the same order, the same
 * pruning, so they enter the same positions, count the same states and find the same lines.
 * tests/test_tripeaks_solver.py runs both and compares. Python keeps everything else (problem
 * checks, the move order, expanding deal runs into "stock" moves).
 *
 * solve(tableau, stock, waste, removed, wrap, peaks, order, max_states, max_seconds)
 *     -> (code, line, states)       code 1 win, 0 loss, 2 unknown
 * best_score(tableau, stock, waste, removed, wrap, peaks, order, run, win_bonus, until_end,
 *            max_states, max_seconds)
 *     -> (code, score, line, states)  code 1 done, 2 unknown
 *
 * tableau: 28 bytes of ranks (1..13, 14 wild; anything for a removed position), stock: bytes of
 * ranks from the top, waste: the top's rank or 0 (empty), removed: the 28-bit mask of removed
 * positions, peaks: the goal (1..3 peaks cleared),
 * order: the 28 positions in the order tableau moves are tried. max_states < 0 and
 * max_seconds < 0 mean no limit. Line codes: 0..27 a tableau position, 28 + k a run of k + 1
 * stock cards dealt. Both searches let go of the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#define NT 28
#define ALL ((1u << NT) - 1)
#define MAX_STOCK 52
#define DEAL 28
#define NONE 255
#define DEAL_COST 5
#define PEAK_BONUS 15
#define LAST_PEAK_BONUS 30
#define MAX_LINE (NT + MAX_STOCK + 8)
#define WILD 14
#define NR (WILD + 1) /* rank codes 0 (an empty waste) .. 14 (wild) */

#if defined(__GNUC__) || defined(__clang__)
#define LOWEST(x) ((int)__builtin_ctz(x))
#define POPCOUNT(x) __builtin_popcount(x)
#else
static int LOWEST(uint32_t x) { int n = 0; while (!(x & 1u)) { x >>= 1; n++; } return n; }
static int POPCOUNT(uint32_t x) { int n = 0; while (x) { x &= x - 1; n++; } return n; }
#endif

static const uint32_t COVERED_BY[NT] = {
    (1u << 3) | (1u << 4),   (1u << 5) | (1u << 6),   (1u << 7) | (1u << 8),
    (1u << 9) | (1u << 10),  (1u << 10) | (1u << 11), (1u << 12) | (1u << 13),
    (1u << 13) | (1u << 14), (1u << 15) | (1u << 16), (1u << 16) | (1u << 17),
    (1u << 18) | (1u << 19), (1u << 19) | (1u << 20), (1u << 20) | (1u << 21),
    (1u << 21) | (1u << 22), (1u << 22) | (1u << 23), (1u << 23) | (1u << 24),
    (1u << 24) | (1u << 25), (1u << 25) | (1u << 26), (1u << 26) | (1u << 27),
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static const int FLOW_ORDER[13] = {1, 3, 5, 7, 9, 11, 13, 2, 4, 6, 8, 10, 12};

/* ---- a hash table of 64-bit keys (never 0) with a 32-bit value each ---- */

typedef struct {
    uint64_t *keys;
    int32_t *values;
    size_t cap, len;
} Table;

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

static int table_init(Table *t, size_t cap) {
    t->cap = cap;
    t->len = 0;
    t->keys = calloc(cap, sizeof *t->keys);
    t->values = malloc(cap * sizeof *t->values);
    return t->keys && t->values;
}

static void table_free(Table *t) {
    free(t->keys);
    free(t->values);
    t->keys = NULL;
    t->values = NULL;
}

/* The slot of key: where it is, or the empty slot where it would go. */
static size_t table_slot(const Table *t, uint64_t key) {
    size_t mask = t->cap - 1, i = mix(key) & mask;
    while (t->keys[i] && t->keys[i] != key) i = (i + 1) & mask;
    return i;
}

/* Make room for one more key; 0 when out of memory. */
static int table_reserve(Table *t) {
    if (2 * (t->len + 1) <= t->cap) return 1;
    Table bigger;
    if (!table_init(&bigger, 2 * t->cap)) {
        table_free(&bigger);
        return 0;
    }
    for (size_t i = 0; i < t->cap; i++) {
        if (t->keys[i]) {
            size_t j = table_slot(&bigger, t->keys[i]);
            bigger.keys[j] = t->keys[i];
            bigger.values[j] = t->values[i];
        }
    }
    bigger.len = t->len;
    table_free(t);
    *t = bigger;
    return 1;
}

/* ---- the problem and its tables (as search.py's _Tables) ---- */

enum { RUNNING = 0, STOP_BUDGET = 1, STOP_MEMORY = 2 };

typedef struct {
    uint8_t rank[NT];
    uint8_t stock[MAX_STOCK];
    int nstock, waste, wrap, peaks, prune;
    uint32_t removed;
    uint8_t order[NT];
    uint16_t adj[NR];
    uint32_t near[NR];
    uint32_t partners[NT];
    uint32_t weak[MAX_STOCK + 1][NR];
    uint8_t stock_counts[MAX_STOCK + 1][NR];
    int need[NR];
    /* search */
    Table seen;
    int64_t states, limit;
    double deadline; /* < 0: none */
    int stop;
    uint8_t line[MAX_LINE];
    int line_len;
    /* best score */
    int run0, win_bonus, until_end;
} Problem;

static uint32_t ABOVE[NT];

static void init_above(void) {
    /* ABOVE[p]: the positions p covers, directly or through others (a covered position has a
       lower number than its covers, so ABOVE[q] is done before it is needed) */
    for (int p = 0; p < NT; p++) {
        uint32_t found = 0;
        for (int q = 0; q < NT; q++)
            if (COVERED_BY[q] >> p & 1u) found |= (1u << q) | ABOVE[q];
        ABOVE[p] = found;
    }
}

static int is_adjacent(int a, int b, int wrap) {
    if (a == 0 || a == WILD || b == 0 || b == WILD) return 1;
    int d = a > b ? a - b : b - a;
    return d == 1 || (wrap && d == 12);
}

static int is_won(const Problem *p, uint32_t mask) {
    return p->peaks >= 3 ? mask == ALL : POPCOUNT(mask & 7u) >= p->peaks;
}

static void prepare(Problem *p) {
    uint32_t live = ALL & ~p->removed;
    for (int q = 0; q < NT; q++)
        if (!(live >> q & 1u)) p->rank[q] = 0;
    for (int r = 0; r < NR; r++) {
        p->adj[r] = 0;
        for (int s = 1; s < NR; s++)
            if (is_adjacent(r, s, p->wrap)) p->adj[r] |= (uint16_t)(1u << s);
    }
    for (int r = 0; r < NR; r++) {
        p->near[r] = 0;
        for (int q = 0; q < NT; q++)
            if ((live >> q & 1u) && (p->adj[r] >> p->rank[q] & 1u)) p->near[r] |= 1u << q;
    }
    /* the loss pruning needs every card to go and no wild card */
    p->prune = p->peaks >= 3 && p->waste != WILD;
    for (int i = 0; i < p->nstock; i++)
        if (p->stock[i] == WILD) p->prune = 0;
    for (int q = 0; q < NT; q++)
        if ((live >> q & 1u) && p->rank[q] == WILD) p->prune = 0;
    int n = p->prune ? p->nstock : 0;
    uint16_t from[MAX_STOCK + 1];
    from[n] = 0;
    memset(p->stock_counts[n], 0, NR);
    for (int i = n - 1; i >= 0; i--) {
        from[i] = (uint16_t)(from[i + 1] | (1u << p->stock[i]));
        memcpy(p->stock_counts[i], p->stock_counts[i + 1], NR);
        p->stock_counts[i][p->stock[i]]++;
    }
    memset(p->need, 0, sizeof p->need);
    for (int q = 0; q < NT; q++)
        if (live >> q & 1u) p->need[p->rank[q]]++;
    for (int i = 0; i <= n; i++) {
        for (int top = 0; top < NR; top++) {
            uint32_t w = 0;
            if (top >= 1 && top < WILD) {
                unsigned lv = (1u << top) | from[i];
                for (int q = 0; q < NT; q++)
                    if ((live >> q & 1u) && !(p->adj[p->rank[q]] & lv)) w |= 1u << q;
            }
            p->weak[i][top] = w;
        }
    }
    for (int q = 0; q < NT; q++) {
        uint32_t m = 0;
        if ((live >> q & 1u) && p->prune) {
            for (int o = 0; o < NT; o++)
                if ((live >> o & 1u) && o != q && !(ABOVE[q] >> o & 1u) &&
                    (p->adj[p->rank[q]] >> p->rank[o] & 1u))
                    m |= 1u << o;
        }
        p->partners[q] = m;
    }
}

static uint32_t free_mask(uint32_t removed) {
    uint32_t free = 0;
    for (int q = 0; q < NT; q++)
        if (!(removed >> q & 1u) && !(COVERED_BY[q] & ~removed)) free |= 1u << q;
    return free;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Count one entered position; nonzero when the budget is spent (p->stop says why). */
static int spend(Problem *p) {
    p->states++;
    if (p->states > p->limit) {
        p->stop = STOP_BUDGET;
        return 1;
    }
    if (p->deadline >= 0 && !(p->states & 1023) && now() >= p->deadline) {
        p->stop = STOP_BUDGET;
        return 1;
    }
    return 0;
}

/* As search.py's _flow_ok. */
static int flow_ok(const Problem *p, const uint8_t *stock, int top) {
    const int *need = p->need;
    int base[NR], rem[NR];
    for (int r = 0; r < NR; r++) base[r] = stock[r] + need[r];
    base[top] += 1;
    int highest = p->wrap ? (need[1] < base[13] ? need[1] : base[13]) : 0;
    for (int x = 0; x <= highest; x++) {
        memcpy(rem, base, sizeof rem);
        rem[13] -= x;
        int ok = 1;
        for (int i = 0; i < 13; i++) {
            int r = FLOW_ORDER[i], k = need[r];
            if (r == 1) {
                k -= x;
            } else {
                int use = k < rem[r - 1] ? k : rem[r - 1];
                k -= use;
                rem[r - 1] -= use;
            }
            if (k) {
                int after = r < 13 ? r + 1 : (p->wrap ? 1 : 0);
                if (!after || rem[after] < k) {
                    ok = 0;
                    break;
                }
                rem[after] -= k;
            }
        }
        if (ok) return 1;
    }
    return 0;
}

/* ---- is it winnable? (search.py's _solve_py) ---- */

/* 1: a win below (its line appended, reversed), 0: not (or stopped: see p->stop) */
static int enter(Problem *p, uint32_t mask, uint32_t free, int si, int top) {
    uint32_t playable = free & p->near[top];
    uint64_t key = (uint64_t)mask | ((uint64_t)playable << 28);
    Table *t = &p->seen;
    size_t slot = table_slot(t, key + 1);
    if (t->keys[slot]) {
        if (t->values[slot] <= si) return 0;
        t->values[slot] = si;
    } else {
        if (!table_reserve(t)) {
            p->stop = STOP_MEMORY;
            return 0;
        }
        slot = table_slot(t, key + 1);
        t->keys[slot] = key + 1;
        t->values[slot] = si;
        t->len++;
    }
    if (spend(p)) return 0;
    uint32_t left = ALL & ~mask;
    if (p->prune) {
        uint32_t doubtful = left & p->weak[si][top];
        while (doubtful) {
            int q = LOWEST(doubtful);
            doubtful &= doubtful - 1;
            if (!(p->partners[q] & left)) return 0;
        }
        if (top && !flow_ok(p, p->stock_counts[si], top)) return 0;
    }
    for (int i = 0; i < NT; i++) {
        int q = p->order[i];
        uint32_t bit = 1u << q;
        if (!(playable & bit)) continue;
        uint32_t child = mask | bit;
        if (is_won(p, child)) {
            p->line[p->line_len++] = (uint8_t)q;
            return 1;
        }
        uint32_t opened = free ^ bit;
        /* the cards q covered: free once both their covers are gone */
        for (int o = 0; o < NT - 10; o++)
            if ((COVERED_BY[o] & bit) && !(COVERED_BY[o] & ~child)) opened |= 1u << o;
        int r = p->rank[q];
        p->need[r]--;
        int found = enter(p, child, opened, si, r);
        p->need[r]++;
        if (found) {
            p->line[p->line_len++] = (uint8_t)q;
            return 1;
        }
        if (p->stop) return 0;
    }
    unsigned shown = 0;
    for (int j = si; j < p->nstock; j++) {
        int r = p->stock[j];
        if ((shown >> r & 1u) || !(free & p->near[r])) continue;
        shown |= 1u << r;
        if (enter(p, mask, free, j + 1, r)) {
            p->line[p->line_len++] = (uint8_t)(DEAL + j - si);
            return 1;
        }
        if (p->stop) return 0;
    }
    return 0;
}

/* ---- the best TriTowers score (search.py's _best_py) ---- */

static uint64_t score_key(uint32_t mask, int si, int top, int run) {
    return ((uint64_t)mask | ((uint64_t)si << 28) | ((uint64_t)top << 34) | ((uint64_t)run << 38)) +
           1;
}

static int32_t value(Problem *p, uint32_t mask, int si, int top, int run) {
    Table *t = &p->seen;
    uint64_t key = score_key(mask, si, top, run);
    size_t slot = table_slot(t, key);
    if (t->keys[slot]) return t->values[slot] >> 8;
    if (spend(p)) return 0;
    int32_t best = 0;
    int move = NONE;
    uint32_t left = ALL & ~mask;
    unsigned fits = p->adj[top];
    int tips = POPCOUNT(mask & 7u);
    for (int i = 0; i < NT; i++) {
        int q = p->order[i];
        uint32_t bit = 1u << q;
        if ((mask & bit) || (COVERED_BY[q] & left) || !(fits >> p->rank[q] & 1u)) continue;
        int32_t gain = run + 1, v;
        if (q < 3) gain += tips == 2 ? LAST_PEAK_BONUS : PEAK_BONUS;
        uint32_t child = mask | bit;
        if (is_won(p, child)) {
            v = gain + p->win_bonus * (p->nstock - si);
        } else {
            v = gain + value(p, child, si, p->rank[q], run + 1);
            if (p->stop) return 0;
        }
        if (move == NONE || v > best) {
            best = v;
            move = q;
        }
    }
    if (si < p->nstock) {
        int32_t v = value(p, mask, si + 1, p->stock[si], 0) - DEAL_COST;
        if (p->stop) return 0;
        if (move == NONE || v > best) {
            best = v;
            move = DEAL;
        }
    }
    if (!p->until_end && best < 0) {
        best = 0;
        move = NONE;
    }
    if (!table_reserve(t)) {
        p->stop = STOP_MEMORY;
        return 0;
    }
    slot = table_slot(t, key);
    t->keys[slot] = key;
    t->values[slot] = (int32_t)((uint32_t)best << 8) | move;
    t->len++;
    return best;
}

/* ---- Python glue ---- */

static int read_problem(Problem *p, Py_buffer *tableau, Py_buffer *stock, int waste,
                        unsigned long long removed, int wrap, int peaks, Py_buffer *order,
                        long long max_states, double max_seconds) {
    if (tableau->len != NT || order->len != NT) {
        PyErr_SetString(PyExc_ValueError, "tableau and order have 28 bytes each");
        return 0;
    }
    if (stock->len > MAX_STOCK || waste < 0 || waste > WILD || removed > ALL || peaks < 1 ||
        peaks > 3) {
        PyErr_SetString(PyExc_ValueError,
                        "at most 52 stock cards; waste 0..14; a 28-bit mask; peaks 1..3");
        return 0;
    }
    memcpy(p->rank, tableau->buf, NT);
    memcpy(p->order, order->buf, NT);
    memcpy(p->stock, stock->buf, (size_t)stock->len);
    p->nstock = (int)stock->len;
    p->waste = waste;
    p->wrap = wrap;
    p->peaks = peaks;
    p->removed = (uint32_t)removed;
    for (int q = 0; q < NT; q++) {
        if (p->order[q] >= NT || ((!(p->removed >> q & 1u)) && (p->rank[q] < 1 || p->rank[q] > WILD))) {
            PyErr_SetString(PyExc_ValueError, "order holds positions 0..27; ranks are 1..14");
            return 0;
        }
    }
    for (int i = 0; i < p->nstock; i++) {
        if (p->stock[i] < 1 || p->stock[i] > WILD) {
            PyErr_SetString(PyExc_ValueError, "stock ranks are 1..14");
            return 0;
        }
    }
    prepare(p);
    p->states = 0;
    p->limit = max_states < 0 ? INT64_MAX : max_states;
    p->deadline = max_seconds < 0 ? -1.0 : now() + max_seconds;
    p->stop = RUNNING;
    p->line_len = 0;
    if (!table_init(&p->seen, 1 << 12)) {
        table_free(&p->seen);
        PyErr_NoMemory();
        return 0;
    }
    return 1;
}

static PyObject *line_list(const uint8_t *codes, int n, int reversed) {
    PyObject *list = PyList_New(n);
    if (!list) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *v = PyLong_FromLong(codes[reversed ? n - 1 - i : i]);
        if (!v) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, v);
    }
    return list;
}

static PyObject *py_solve(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer tableau, stock, order;
    int waste, wrap, peaks;
    unsigned long long removed;
    long long max_states;
    double max_seconds;
    if (!PyArg_ParseTuple(args, "y*y*iKpiy*Ld", &tableau, &stock, &waste, &removed, &wrap, &peaks,
                          &order, &max_states, &max_seconds))
        return NULL;
    Problem *p = calloc(1, sizeof *p);
    PyObject *result = NULL;
    if (!p) {
        PyErr_NoMemory();
        goto done;
    }
    if (!read_problem(p, &tableau, &stock, waste, removed, wrap, peaks, &order, max_states,
                      max_seconds))
        goto done;
    int won;
    Py_BEGIN_ALLOW_THREADS
    won = enter(p, p->removed, free_mask(p->removed), 0, p->waste);
    Py_END_ALLOW_THREADS
    table_free(&p->seen);
    if (p->stop == STOP_MEMORY) {
        PyErr_NoMemory();
        goto done;
    }
    int code = won ? 1 : (p->stop ? 2 : 0);
    int64_t states = p->states < p->limit ? p->states : p->limit;
    PyObject *line = line_list(p->line, won ? p->line_len : 0, 1);
    if (line) result = Py_BuildValue("iNL", code, line, (long long)states);
done:
    if (p) table_free(&p->seen);
    free(p);
    PyBuffer_Release(&tableau);
    PyBuffer_Release(&stock);
    PyBuffer_Release(&order);
    return result;
}

static PyObject *py_best_score(PyObject *self, PyObject *args) {
    (void)self;
    Py_buffer tableau, stock, order;
    int waste, wrap, peaks, run, win_bonus, until_end;
    unsigned long long removed;
    long long max_states;
    double max_seconds;
    if (!PyArg_ParseTuple(args, "y*y*iKpiy*iipLd", &tableau, &stock, &waste, &removed, &wrap,
                          &peaks, &order, &run, &win_bonus, &until_end, &max_states,
                          &max_seconds))
        return NULL;
    Problem *p = calloc(1, sizeof *p);
    PyObject *result = NULL;
    if (!p) {
        PyErr_NoMemory();
        goto done;
    }
    if (run < 0 || run > NT || win_bonus < -1000000 || win_bonus > 1000000) {
        PyErr_SetString(PyExc_ValueError, "run is 0..28; win_bonus at most a million");
        goto done;
    }
    if (!read_problem(p, &tableau, &stock, waste, removed, wrap, peaks, &order, max_states,
                      max_seconds))
        goto done;
    p->run0 = run;
    p->win_bonus = win_bonus;
    p->until_end = until_end;
    int32_t score;
    Py_BEGIN_ALLOW_THREADS
    score = value(p, p->removed, 0, p->waste, run);
    if (!p->stop) {
        /* the line: follow the best moves through the table */
        uint32_t mask = p->removed;
        int si = 0, top = p->waste, r = run;
        while (!is_won(p, mask) && p->line_len < MAX_LINE) {
            size_t slot = table_slot(&p->seen, score_key(mask, si, top, r));
            int move = p->seen.values[slot] & 0xff;
            if (move == NONE) break;
            p->line[p->line_len++] = (uint8_t)move;
            if (move == DEAL) {
                top = p->stock[si++];
                r = 0;
            } else {
                mask |= 1u << move;
                top = p->rank[move];
                r++;
            }
        }
    }
    Py_END_ALLOW_THREADS
    if (p->stop == STOP_MEMORY) {
        PyErr_NoMemory();
        goto done;
    }
    int64_t states = p->states < p->limit ? p->states : p->limit;
    if (p->stop) {
        result = Py_BuildValue("iiNL", 2, 0, PyList_New(0), (long long)states);
    } else {
        PyObject *line = line_list(p->line, p->line_len, 0);
        if (line) result = Py_BuildValue("iiNL", 1, (int)score, line, (long long)states);
    }
done:
    if (p) table_free(&p->seen);
    free(p);
    PyBuffer_Release(&tableau);
    PyBuffer_Release(&stock);
    PyBuffer_Release(&order);
    return result;
}

static PyMethodDef methods[] = {
    {"solve", py_solve, METH_VARARGS, "Whether a Tri Peaks position can be won (see search.py)."},
    {"best_score", py_best_score, METH_VARARGS,
     "The best TriTowers score to come from a position (see search.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_search",
    "Tri Peaks' exact searches in C: the same as skillcheck.games.tripeaks.search in Python.", -1,
    methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__search(void) {
    init_above();
    return PyModule_Create(&module);
}
