/*
 * skillcheck.games.three_towers._planner: the planner's hot loop in C (optional accelerator).
 *
 * The same search as skillcheck.games.three_towers.solver._Planner.run, position for position: the same children
 * in the same order, the same keys (five bits per card naming the card below it, so the towers'
 * order does not matter), the same tower costs and the same packed heap values, so ties break
 * the same way. tests/test_solver.py runs both and compares the positions they generate and the
 * lines they find. The Python side keeps everything else (goals, schedule, budget, line
 * expansion); this module only runs one search, resumably.
 *
 * Limits: at most 24 cards (a Three Towers deck's numerals) and 8 towers; a search holds at most
 * 2**31 - 2 positions.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define MAX_CARDS 24      /* two 64-bit words hold 24 five-bit key fields (12 each) */
#define MAX_SPACES 8
#define BOTTOM 31u       /* key code of a card on an empty space */
#define COUNT_BITS 40
#define COUNT_MASK ((UINT64_C(1) << COUNT_BITS) - 1)
#define CARDS_PER_WORD 12 /* 12 five-bit fields per 64-bit key word */
#define MAX_WEIGHT 255    /* tower-cost weights: costs stay below 2**18 */
#define MAX_NODES (INT32_MAX - 1)

#if defined(__GNUC__) || defined(__clang__)
#define POPCOUNT(x) __builtin_popcount(x)
#define LOWEST(x) ((int)__builtin_ctz(x))
#define HIGHEST(x) (31 - (int)__builtin_clz(x))
#else
static int POPCOUNT(uint32_t x) { int n = 0; while (x) { x &= x - 1; n++; } return n; }
static int LOWEST(uint32_t x) { int n = 0; while (!(x & 1u)) { x >>= 1; n++; } return n; }
static int HIGHEST(uint32_t x) { int n = -1; while (x) { x >>= 1; n++; } return n; }
#endif

typedef struct {
    uint64_t lo, hi;
} Key;

typedef struct {
    uint32_t towers[MAX_SPACES];
    Key key;
    int32_t parent;  /* the node this one was reached from, -1 for the start */
    uint8_t pos;     /* deck position */
    uint8_t source;  /* 0xff: the deck card was placed; else the tower a run came from */
    uint8_t count;   /* run length, or the deck index of the card placed */
    uint8_t target;
} Node;

typedef struct {
    uint32_t tower; /* 0: empty slot */
    uint32_t home;
    int32_t cost;
} CostSlot;

typedef struct {
    PyObject_HEAD
    int spaces, n, nd, pure_target, is_quota, qn;
    int running;  /* run() is searching (without the GIL): a second call must not enter */
    int failure;  /* why the search stopped with no Python exception set (FAILED_*) */
    uint32_t notpure, needed;
    uint8_t deck[MAX_CARDS + 1];
    uint32_t onto[MAX_CARDS];
    int32_t parent[MAX_CARDS];
    uint32_t anc[MAX_CARDS], chain[MAX_CARDS];
    int w_junk, w_break, w_buried, w_quota, w_block, w_linked, w_block_need;
    uint64_t *base; /* (nd + 1) x (spaces + 1) packed values */
    PyObject *won;  /* the problem's won(towers, pos) */
    Node *nodes;
    size_t nodes_cap;
    int64_t counter;
    uint64_t *seen; /* slots: the key's hash fingerprint << 32 | its node's index + 1; 0 empty */
    size_t seen_cap, seen_len;
    uint64_t *heap;
    size_t heap_len, heap_cap;
    CostSlot *costs;
    size_t costs_cap, costs_len;
} Planner;

enum { FAILED_MEMORY = 0, FAILED_TOO_MANY = 1, FAILED_CORRUPT = 2 };

/* ---- keys and the seen table ------------------------------------------------------------- */

static inline void key_set_field(Key *k, int card, uint64_t code)
{
    if (card < CARDS_PER_WORD)
        k->lo ^= code << (5 * card);
    else
        k->hi ^= code << (5 * (card - CARDS_PER_WORD));
}

static inline uint64_t key_hash(Key k)
{
    uint64_t h = k.lo * UINT64_C(0x9E3779B97F4A7C15) ^ (k.hi + UINT64_C(0x632BE59BD9B4E019)) * UINT64_C(0xC2B2AE3D27D4EB4F);
    return h ^ (h >> 31);
}

static int seen_grow(Planner *self)
{
    size_t cap = self->seen_cap ? self->seen_cap * 2 : 1024;
    uint64_t *table = PyMem_RawCalloc(cap, sizeof(uint64_t));
    if (!table) {
        return -1;
    }
    for (size_t i = 0; i < self->seen_cap; i++) {
        uint64_t s = self->seen[i];
        if (!s)
            continue;
        size_t h = key_hash(self->nodes[(uint32_t)s - 1].key) & (cap - 1);
        while (table[h])
            h = (h + 1) & (cap - 1);
        table[h] = s;
    }
    PyMem_RawFree(self->seen);
    self->seen = table;
    self->seen_cap = cap;
    return 0;
}

/* The seen table holds node indices; keys are compared in the nodes (only when the 32-bit hash
 * fingerprints agree). Node ``index`` must already hold ``key``.
 * 1 if the key was already there, 0 if added for node ``index``, -1 on error. */
static inline int seen_add(Planner *self, uint32_t index)
{
    if ((self->seen_len + 1) * 2 > self->seen_cap && seen_grow(self) < 0)
        return -1;
    Key k = self->nodes[index].key;
    uint64_t hash = key_hash(k);
    uint64_t fingerprint = hash >> 32 << 32;
    size_t mask = self->seen_cap - 1;
    size_t h = hash & mask;
    uint64_t *table = self->seen;
    while (table[h]) {
        if ((table[h] & ~UINT64_C(0xffffffff)) == fingerprint) {
            Key o = self->nodes[(uint32_t)table[h] - 1].key;
            if (o.lo == k.lo && o.hi == k.hi)
                return 1;
        }
        h = (h + 1) & mask;
    }
    table[h] = fingerprint | ((uint64_t)index + 1);
    self->seen_len++;
    return 0;
}

/* ---- the open heap (a binary min-heap of packed values) ---------------------------------- */

static int heap_push(Planner *self, uint64_t v)
{
    if (self->heap_len == self->heap_cap) {
        size_t cap = self->heap_cap ? self->heap_cap * 2 : 1024;
        uint64_t *h = PyMem_RawRealloc(self->heap, cap * sizeof(uint64_t));
        if (!h) {
            return -1;
        }
        self->heap = h;
        self->heap_cap = cap;
    }
    uint64_t *h = self->heap;
    size_t i = self->heap_len++;
    while (i) {
        size_t up = (i - 1) >> 1;
        if (h[up] <= v)
            break;
        h[i] = h[up];
        i = up;
    }
    h[i] = v;
    return 0;
}

static uint64_t heap_pop(Planner *self)
{
    uint64_t *h = self->heap;
    uint64_t top = h[0];
    uint64_t last = h[--self->heap_len];
    size_t n = self->heap_len, i = 0;
    if (!n)
        return top;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && h[c + 1] < h[c])
            c++;
        if (last <= h[c])
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return top;
}

/* ---- tower costs (skillcheck.games.three_towers.solver._Target.tower) --------------------------------------- */

static int costs_grow(Planner *self)
{
    size_t cap = self->costs_cap ? self->costs_cap * 2 : 256;
    CostSlot *table = PyMem_RawCalloc(cap, sizeof(CostSlot));
    if (!table) {
        return -1;
    }
    for (size_t i = 0; i < self->costs_cap; i++) {
        CostSlot s = self->costs[i];
        if (!s.tower)
            continue;
        size_t h = (s.tower * UINT32_C(2654435761)) & (cap - 1);
        while (table[h].tower)
            h = (h + 1) & (cap - 1);
        table[h] = s;
    }
    PyMem_RawFree(self->costs);
    self->costs = table;
    self->costs_cap = cap;
    return 0;
}

/* (home cards, cost) of a non-empty tower, memoised; the cost is -1 on a memory error. */
static CostSlot tower_cost(Planner *self, uint32_t t)
{
    CostSlot r = {0, 0, -1};
    if ((self->costs_len + 1) * 2 > self->costs_cap && costs_grow(self) < 0)
        return r;
    size_t mask = self->costs_cap - 1;
    size_t h = (t * UINT32_C(2654435761)) & mask;
    while (self->costs[h].tower) {
        if (self->costs[h].tower == t)
            return self->costs[h];
        h = (h + 1) & mask;
    }
    uint32_t cm = self->chain[HIGHEST(t)];
    uint32_t home = 0;
    if (cm) {
        uint32_t d = t ^ cm;
        if (d) {
            int hb = HIGHEST(d) + 1;
            home = t >> hb << hb;
        } else {
            home = t;
        }
    }
    uint32_t junk = t ^ home;
    int cost = 0;
    if (self->pure_target) {
        uint32_t needed = self->needed;
        uint32_t x = junk & needed;
        while (x) {
            uint32_t low = x & (~x + 1);
            x ^= low;
            uint32_t below = t & ~((low << 1) - 1);
            uint32_t above = t & (low - 1);
            int c = LOWEST(low);
            if (below && self->parent[c] == LOWEST(below))
                cost += self->w_linked;
            else
                cost += self->w_quota;
            cost += self->w_block * POPCOUNT(above & ~needed);
            cost += self->w_block_need * POPCOUNT(above & needed);
        }
        if (home)
            cost += self->w_block * POPCOUNT(junk);
    } else {
        uint32_t x = junk;
        while (x) {
            uint32_t low = x & (~x + 1);
            x ^= low;
            int c = LOWEST(low);
            uint32_t below = t & ~((low << 1) - 1);
            cost += self->w_junk;
            if (!below || self->parent[c] != LOWEST(below))
                cost += self->w_break;
            if (self->anc[c] & junk & below)
                cost += self->w_buried;
        }
    }
    r.tower = t;
    r.home = home;
    r.cost = cost;
    self->costs[h] = r;
    self->costs_len++;
    return r;
}

/* ---- the search ------------------------------------------------------------------------- */

static Node *new_node(Planner *self)
{
    size_t index = (size_t)self->counter + 1;
    if (index >= MAX_NODES) {
        self->failure = FAILED_TOO_MANY;
        return NULL;
    }
    if (index >= self->nodes_cap) {
        size_t cap = self->nodes_cap * 2;
        Node *nodes = PyMem_RawRealloc(self->nodes, cap * sizeof(Node));
        if (!nodes) {
            return NULL;
        }
        self->nodes = nodes;
        self->nodes_cap = cap;
    }
    return &self->nodes[index];
}

/* The winning line to node ``index`` as a list of macro moves (source, count, target), source
 * -1 for the deck (count is then the deck index of the card placed). */
static PyObject *finish(Planner *self, int64_t index)
{
    PyObject *out = PyList_New(0);
    if (!out)
        return NULL;
    while (index > 0) {
        Node *nd = &self->nodes[index];
        int source = nd->source == 0xff ? -1 : nd->source;
        PyObject *move = Py_BuildValue("(iii)", source, (int)nd->count, (int)nd->target);
        if (!move || PyList_Append(out, move) < 0) {
            Py_XDECREF(move);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(move);
        index = nd->parent;
    }
    if (PyList_Reverse(out) < 0) {
        Py_DECREF(out);
        return NULL;
    }
    return out;
}

/* Calls the problem's won(towers, pos) (with the GIL held): 1, 0 or -1 on error. */
static int call_won(Planner *self, const uint32_t *towers, int pos)
{
    if (!self->won) { /* cleared by the cycle collector: the planner is garbage */
        PyErr_SetString(PyExc_RuntimeError, "the planner was cleared");
        return -1;
    }
    PyObject *tup = PyTuple_New(self->spaces);
    if (!tup)
        return -1;
    for (int j = 0; j < self->spaces; j++) {
        PyObject *v = PyLong_FromUnsignedLong(towers[j]);
        if (!v) {
            Py_DECREF(tup);
            return -1;
        }
        PyTuple_SET_ITEM(tup, j, v);
    }
    PyObject *r = PyObject_CallFunction(self->won, "Oi", tup, pos);
    Py_DECREF(tup);
    if (!r)
        return -1;
    int truth = PyObject_IsTrue(r);
    Py_DECREF(r);
    return truth;
}

static inline int pure_enough(Planner *self, uint32_t t)
{
    return t && !(t & self->notpure) && POPCOUNT(t) >= self->qn;
}

/* Outcome of generating one child. */
enum { CHILD_DONE = 0, CHILD_WON = 1, CHILD_ERROR = -1 };

/* One call of run(). The search itself runs without the GIL (other Python threads go on: a
 * server solving in threads); ``ts`` is the thread state to take it back for Python calls. */
typedef struct {
    int64_t states, stop;
    PyObject *tick;
    PyThreadState *ts;
} Run;

static int tick(Run *run)
{
    PyEval_RestoreThread(run->ts);
    long long stop = -1;
    PyObject *r = PyObject_CallFunction(run->tick, "L", (long long)run->states);
    if (r) {
        stop = PyLong_AsLongLong(r);
        Py_DECREF(r);
    }
    int failed = stop == -1 && PyErr_Occurred();
    run->ts = PyEval_SaveThread();
    if (failed)
        return -1;
    run->stop = stop;
    return 0;
}

/* The towers a card (or run) may go to, ascending: those whose top card is in ``cand`` (a mask of
 * top cards; ``slot`` maps a top card's key code to its tower), and ``extra`` when it is >= 0. */
static inline int targets(uint32_t cand, const int *slot, int extra, int *js)
{
    int nj = 0;
    while (cand) {
        js[nj++] = slot[LOWEST(cand) + 1];
        cand &= cand - 1;
    }
    if (extra >= 0)
        js[nj++] = extra;
    for (int a = 1; a < nj; a++) { /* insertion sort: a handful of towers */
        int v = js[a], b = a - 1;
        while (b >= 0 && js[b] > v) {
            js[b + 1] = js[b];
            b--;
        }
        js[b + 1] = v;
    }
    return nj;
}

/* One move out of the position being expanded. */
typedef struct {
    int source;       /* the tower the run leaves, -1 for the deck card */
    uint32_t rest;    /* what the source tower keeps */
    int target;
    uint32_t placed;  /* the cards that move (one card from the deck) */
    int card;         /* the bottom card of what moves: its key field changes */
    uint32_t field;   /* xor of its old and new key codes */
    int pos;          /* the child's deck position */
    int count;        /* run length, or the deck index of the card placed */
    int64_t cost;     /* the child's towers' costs, all but the target's */
    uint64_t base;    /* packed value of the child's deck position and empty spaces */
} Child;

/* Adds the child unless its position was seen: CHILD_DONE, CHILD_WON or CHILD_ERROR. */
static inline int add_child(Planner *self, Run *run, const Node *cur, int64_t ix, const Child *m)
{
    Node *child = new_node(self);
    if (!child)
        return CHILD_ERROR;
    child->key = cur->key;
    key_set_field(&child->key, m->card, m->field);
    int found = seen_add(self, (uint32_t)(self->counter + 1));
    if (found)
        return found < 0 ? CHILD_ERROR : CHILD_DONE;
    memcpy(child->towers, cur->towers, sizeof cur->towers);
    uint32_t v = cur->towers[m->target] | m->placed;
    if (m->source >= 0)
        child->towers[m->source] = m->rest;
    child->towers[m->target] = v;
    child->parent = (int32_t)ix;
    child->pos = (uint8_t)m->pos;
    child->source = m->source < 0 ? 0xff : (uint8_t)m->source;
    child->count = (uint8_t)m->count;
    child->target = (uint8_t)m->target;
    int64_t counter = ++self->counter;
    if (++run->states >= run->stop && tick(run) < 0)
        return CHILD_ERROR;
    if (!(counter & 0xffff)) { /* Ctrl-C reaches a search that has no budget to check */
        PyEval_RestoreThread(run->ts);
        int interrupted = PyErr_CheckSignals();
        run->ts = PyEval_SaveThread();
        if (interrupted < 0)
            return CHILD_ERROR;
    }
    if (self->is_quota && (pure_enough(self, v) || pure_enough(self, m->rest)))
        return CHILD_WON;
    CostSlot r = tower_cost(self, v);
    if (r.cost < 0)
        return CHILD_ERROR;
    int64_t cost = m->cost + r.cost;
    if (!cost && m->pos == self->nd && !self->pure_target) {
        PyEval_RestoreThread(run->ts);
        int w = call_won(self, child->towers, m->pos);
        run->ts = PyEval_SaveThread();
        if (w)
            return w < 0 ? CHILD_ERROR : CHILD_WON;
    }
    if (heap_push(self, m->base + ((uint64_t)cost << COUNT_BITS) - (uint64_t)counter) < 0)
        return CHILD_ERROR;
    return CHILD_DONE;
}

/* run(limit, states, stop, tick) -> (macros or None, cut short, states) */
static PyObject *Planner_run(Planner *self, PyObject *args)
{
    long long limit, states0, stop0;
    PyObject *tick_fn;
    if (!PyArg_ParseTuple(args, "LLLO:run", &limit, &states0, &stop0, &tick_fn))
        return NULL;
    if (self->running) {
        PyErr_SetString(PyExc_RuntimeError, "this search is already running in another thread");
        return NULL;
    }
    Run run = {states0, stop0, tick_fn, NULL};
    const int spaces = self->spaces, nd = self->nd;
    const int row = spaces + 1;
    int32_t pc[MAX_SPACES];
    uint32_t tc[MAX_SPACES], homes[MAX_SPACES];
    int slot[MAX_CARDS + 2];
    int js[MAX_SPACES + 1];
    int outcome = CHILD_DONE;
    int cut = 0;

    self->running = 1;
    self->failure = FAILED_MEMORY;
    run.ts = PyEval_SaveThread();
    while (self->heap_len && outcome == CHILD_DONE) {
        if (self->counter >= limit) {
            cut = 1;
            break;
        }
        int64_t ix = (int64_t)(COUNT_MASK - (heap_pop(self) & COUNT_MASK));
        if (ix > self->counter) { /* not a node: init refuses such values, so never */
            self->failure = FAILED_CORRUPT;
            outcome = CHILD_ERROR;
            goto stopped;
        }
        Node cur = self->nodes[ix];
        int pos = cur.pos;
        int e = 0, fe = -1;
        int64_t total = 0;
        uint32_t tops = 0;
        for (int j = 0; j < spaces; j++) {
            uint32_t t = cur.towers[j];
            if (t) {
                CostSlot r = tower_cost(self, t);
                if (r.cost < 0) {
                    outcome = CHILD_ERROR;
                    goto stopped;
                }
                pc[j] = r.cost;
                homes[j] = r.home;
                total += r.cost;
                int top = LOWEST(t);
                tc[j] = (uint32_t)top + 1;
                slot[top + 1] = j;
                tops |= UINT32_C(1) << top;
            } else {
                pc[j] = 0;
                homes[j] = 0;
                tc[j] = BOTTOM;
                e++;
                if (fe < 0)
                    fe = j;
            }
        }
        Child m;
        if (pos < nd) { /* the deck's card onto a tower it fits, or the first empty space */
            int x = self->deck[pos];
            const uint64_t *bn = self->base + (size_t)(pos + 1) * row;
            m.source = -1;
            m.rest = 0;
            m.placed = UINT32_C(1) << x;
            m.card = x;
            m.pos = pos + 1;
            m.count = pos;
            int nj = targets(self->onto[x] & tops, slot, fe, js);
            for (int q = 0; q < nj && outcome == CHILD_DONE; q++) {
                int j = js[q];
                m.target = j;
                m.field = tc[j];
                m.cost = total - pc[j];
                m.base = bn[cur.towers[j] ? e : e - 1];
                outcome = add_child(self, &run, &cur, ix, &m);
            }
        }
        /* a tower's top run (cards not home) onto a tower, or onto an empty space */
        const uint64_t *bn = self->base + (size_t)pos * row;
        int lim = 1 << e;
        int lim_empty = fe >= 0 ? lim >> 1 : 0;
        m.pos = pos;
        for (int i = 0; i < spaces && outcome == CHILD_DONE; i++) {
            uint32_t t = cur.towers[i];
            if (!t)
                continue;
            uint32_t x = t ^ homes[i];
            uint32_t runbits = 0;
            int k = 0;
            m.source = i;
            while (x && outcome == CHILD_DONE) {
                uint32_t low = x & (~x + 1);
                x ^= low;
                if (++k > lim)
                    break;
                runbits |= low;
                uint32_t rest = t ^ runbits;
                int64_t rest_cost = 0;
                if (rest) {
                    CostSlot rr = tower_cost(self, rest);
                    if (rr.cost < 0) {
                        outcome = CHILD_ERROR;
                        goto stopped;
                    }
                    rest_cost = rr.cost;
                }
                m.rest = rest;
                m.placed = runbits;
                m.card = LOWEST(low);
                m.count = k;
                uint32_t old = rest ? (uint32_t)LOWEST(rest) + 1 : BOTTOM;
                int extra = rest && k <= lim_empty ? fe : -1;
                int nj = targets(self->onto[m.card] & tops, slot, extra, js);
                for (int q = 0; q < nj && outcome == CHILD_DONE; q++) {
                    int j = js[q];
                    m.target = j;
                    m.field = old ^ tc[j];
                    m.cost = total - pc[i] - pc[j] + rest_cost;
                    m.base = bn[(cur.towers[j] ? e : e - 1) + (rest ? 0 : 1)];
                    outcome = add_child(self, &run, &cur, ix, &m);
                }
            }
        }
    }
stopped:
    PyEval_RestoreThread(run.ts);
    self->running = 0;
    if (outcome == CHILD_ERROR) {
        if (PyErr_Occurred())
            return NULL;
        if (self->failure == FAILED_TOO_MANY)
            return PyErr_Format(PyExc_OverflowError, "a search holds at most %d positions",
                                MAX_NODES);
        if (self->failure == FAILED_CORRUPT)
            return PyErr_Format(PyExc_SystemError, "the planner's open list is corrupt");
        return PyErr_NoMemory();
    }
    if (outcome == CHILD_WON) {
        PyObject *line = finish(self, self->counter);
        if (!line)
            return NULL;
        return Py_BuildValue("(NOL)", line, Py_False, (long long)run.states);
    }
    return Py_BuildValue("(OOL)", Py_None, cut ? Py_True : Py_False, (long long)run.states);
}

/* ---- construction ----------------------------------------------------------------------- */

static int read_ints(PyObject *seq, const char *what, int count, long long *out)
{
    PyObject *fast = PySequence_Fast(seq, what);
    if (!fast)
        return -1;
    if (PySequence_Fast_GET_SIZE(fast) != count) {
        PyErr_Format(PyExc_ValueError, "%s: expected %d values, got %zd", what, count,
                     PySequence_Fast_GET_SIZE(fast));
        Py_DECREF(fast);
        return -1;
    }
    for (int i = 0; i < count; i++) {
        out[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (out[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    return 0;
}

static int invalid(const char *what)
{
    PyErr_Format(PyExc_ValueError, "%s", what);
    return -1;
}

/* Reads ``count`` ints each in [lo, hi] into ``out``. */
static int read_range(PyObject *seq, const char *what, int count, long long lo, long long hi,
                      long long *out)
{
    if (read_ints(seq, what, count, out) < 0)
        return -1;
    for (int i = 0; i < count; i++)
        if (out[i] < lo || out[i] > hi) {
            PyErr_Format(PyExc_ValueError, "%s: %lld is out of range (%lld..%lld)", what, out[i],
                         lo, hi);
            return -1;
        }
    return 0;
}

/* A packed heap value is (value + offset) << COUNT_BITS | (COUNT_MASK - counter); here the
 * counter part must be 0 and the value small enough that adding a cost cannot overflow. */
static int valid_packed(unsigned long long v)
{
    return (v & COUNT_MASK) == COUNT_MASK && (v >> COUNT_BITS) < (UINT64_C(1) << 22);
}

static int Planner_init(Planner *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"deck", "onto", "parent", "anc", "chain", "needed", "pure_target",
                             "suit_bits", "quota", "weights", "packed_base", "start",
                             "start_key", "first", "won", NULL};
    PyObject *deck, *onto, *parent, *anc, *chain, *weights, *packed, *start, *start_key, *won;
    unsigned long long needed, suit_bits, first;
    int pure_target, qn;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OOOOOKpKiOOOOKO", kwlist, &deck, &onto, &parent,
                                     &anc, &chain, &needed, &pure_target, &suit_bits, &qn,
                                     &weights, &packed, &start, &start_key, &first, &won))
        return -1;
    if (self->base || self->nodes) {
        PyErr_SetString(PyExc_RuntimeError, "Planner is already initialised");
        return -1;
    }
    Py_ssize_t n = PySequence_Length(onto);
    Py_ssize_t nd = PySequence_Length(deck);
    Py_ssize_t spaces = PySequence_Length(start);
    if (n < 0 || nd < 0 || spaces < 0)
        return -1;
    if (n > MAX_CARDS || nd > n || spaces < 1 || spaces > MAX_SPACES) {
        PyErr_Format(PyExc_ValueError,
                     "the C planner handles at most %d cards and 1..%d towers (got %zd cards, "
                     "%zd in the deck, %zd towers)", MAX_CARDS, MAX_SPACES, n, nd, spaces);
        return -1;
    }
    const long long all = (1LL << n) - 1; /* every card, as a bit set */
    self->n = (int)n;
    self->nd = (int)nd;
    self->spaces = (int)spaces;
    long long buf[MAX_CARDS];
    long long used = 0;
    if (read_range(deck, "deck", (int)nd, 0, n - 1, buf) < 0)
        return -1;
    for (int i = 0; i < nd; i++) {
        if (used >> buf[i] & 1)
            return invalid("deck: a card comes twice");
        used |= 1LL << buf[i];
        self->deck[i] = (uint8_t)buf[i];
    }
    if (read_range(onto, "onto", (int)n, 0, all, buf) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        self->onto[i] = (uint32_t)buf[i];
    if (read_range(parent, "parent", (int)n, -1, n - 1, buf) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        self->parent[i] = (int32_t)buf[i];
    if (read_range(anc, "anc", (int)n, 0, all, buf) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        self->anc[i] = (uint32_t)buf[i];
    if (read_range(chain, "chain", (int)n, 0, all, buf) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        self->chain[i] = (uint32_t)buf[i];
    long long w[7];
    if (read_range(weights, "weights", 7, 0, MAX_WEIGHT, w) < 0)
        return -1;
    self->w_junk = (int)w[0];
    self->w_break = (int)w[1];
    self->w_buried = (int)w[2];
    self->w_quota = (int)w[3];
    self->w_block = (int)w[4];
    self->w_linked = (int)w[5];
    self->w_block_need = (int)w[6];
    if (needed & ~(unsigned long long)all)
        return invalid("needed: a card that is not in the game");
    if (qn < 0 || qn > n)
        return invalid("quota: from 0 (no quota) to the number of cards");
    if (!valid_packed(first))
        return invalid("first: not a packed heap value of the start");
    self->needed = (uint32_t)needed;
    self->pure_target = pure_target;
    self->is_quota = qn > 0;
    self->qn = qn;
    self->notpure = ~(uint32_t)(suit_bits & (unsigned long long)all);

    Node root;
    memset(&root, 0, sizeof root);
    long long towers[MAX_SPACES];
    if (read_range(start, "start", (int)spaces, 0, all, towers) < 0)
        return -1;
    for (int j = 0; j < spaces; j++) {
        if (towers[j] & used)
            return invalid("start: the towers and the deck must hold every card once");
        used |= towers[j];
        root.towers[j] = (uint32_t)towers[j];
    }
    if (used != all)
        return invalid("start: the towers and the deck must hold every card once");
    /* the start key arrives as one Python int: split it into the two words */
    PyObject *mask = PyLong_FromUnsignedLongLong((UINT64_C(1) << (5 * CARDS_PER_WORD)) - 1);
    PyObject *shift = PyLong_FromLong(5 * CARDS_PER_WORD);
    PyObject *lo = mask ? PyNumber_And(start_key, mask) : NULL;
    PyObject *hi = shift ? PyNumber_Rshift(start_key, shift) : NULL;
    Py_XDECREF(mask);
    Py_XDECREF(shift);
    if (!lo || !hi) {
        Py_XDECREF(lo);
        Py_XDECREF(hi);
        return -1;
    }
    root.key.lo = PyLong_AsUnsignedLongLong(lo);
    root.key.hi = PyLong_AsUnsignedLongLong(hi);
    Py_DECREF(lo);
    Py_DECREF(hi);
    if (PyErr_Occurred())
        return -1;
    if (root.key.hi >> (5 * (MAX_CARDS - CARDS_PER_WORD)))
        return invalid("start_key: more fields than cards");
    root.parent = -1;

    PyObject *rows = PySequence_Fast(packed, "packed_base");
    if (!rows)
        return -1;
    if (PySequence_Fast_GET_SIZE(rows) != nd + 1) {
        Py_DECREF(rows);
        return invalid("packed_base: one row per deck position and one more");
    }
    uint64_t *base = PyMem_RawCalloc((size_t)(nd + 1) * (spaces + 1), sizeof(uint64_t));
    if (!base) {
        Py_DECREF(rows);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t i = 0; i <= nd; i++) {
        PyObject *r = PySequence_Fast(PySequence_Fast_GET_ITEM(rows, i), "packed_base row");
        if (!r || PySequence_Fast_GET_SIZE(r) != spaces + 1) {
            Py_XDECREF(r);
            Py_DECREF(rows);
            PyMem_RawFree(base);
            return PyErr_Occurred() ? -1 : invalid("packed_base: one value per count of empty spaces");
        }
        for (Py_ssize_t e = 0; e <= spaces; e++) {
            unsigned long long v = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(r, e));
            if ((v == (unsigned long long)-1 && PyErr_Occurred()) || !valid_packed(v)) {
                Py_DECREF(r);
                Py_DECREF(rows);
                PyMem_RawFree(base);
                return PyErr_Occurred() ? -1 : invalid("packed_base: not a packed heap value");
            }
            base[i * (spaces + 1) + e] = v;
        }
        Py_DECREF(r);
    }
    Py_DECREF(rows);

    /* everything checked: from here on only memory can fail */
    self->base = base;
    self->nodes_cap = 1024;
    self->nodes = PyMem_RawCalloc(self->nodes_cap, sizeof(Node));
    if (!self->nodes) {
        PyErr_NoMemory();
        return -1;
    }
    self->nodes[0] = root;
    self->counter = 0;
    if (seen_add(self, 0) < 0 || heap_push(self, first) < 0) {
        PyErr_NoMemory();
        return -1;
    }
    Py_INCREF(won);
    self->won = won;
    return 0;
}

static int Planner_traverse(Planner *self, visitproc visit, void *arg)
{
    Py_VISIT(self->won);
    return 0;
}

static int Planner_clear(Planner *self)
{
    Py_CLEAR(self->won);
    return 0;
}

static void Planner_dealloc(Planner *self)
{
    PyObject_GC_UnTrack(self);
    Planner_clear(self);
    PyMem_RawFree(self->base);
    PyMem_RawFree(self->nodes);
    PyMem_RawFree(self->seen);
    PyMem_RawFree(self->heap);
    PyMem_RawFree(self->costs);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* The counts change while a search runs (without the GIL): read them only between runs. */
static int idle(Planner *self)
{
    if (!self->running)
        return 1;
    PyErr_SetString(PyExc_RuntimeError, "the search is running: read its counts when it returns");
    return 0;
}

static PyObject *Planner_counter(Planner *self, void *closure)
{
    return idle(self) ? PyLong_FromLongLong(self->counter) : NULL;
}

static PyObject *Planner_stored(Planner *self, void *closure)
{
    return idle(self) ? PyLong_FromSize_t(self->seen_len) : NULL;
}

static PyObject *Planner_exhausted(Planner *self, void *closure)
{
    return idle(self) ? PyBool_FromLong(self->heap_len == 0) : NULL;
}

static PyGetSetDef Planner_getset[] = {
    {"counter", (getter)Planner_counter, NULL, "positions generated so far", NULL},
    {"stored", (getter)Planner_stored, NULL, "positions held (the seen table)", NULL},
    {"exhausted", (getter)Planner_exhausted, NULL, "whether the open list is empty", NULL},
    {NULL},
};

static PyMethodDef Planner_methods[] = {
    {"run", (PyCFunction)Planner_run, METH_VARARGS,
     "run(limit, states, stop, tick) -> (macro moves or None, cut short, states)\n\n"
     "Search on until ``limit`` positions in all were generated. ``tick(states)`` is called "
     "when ``states`` reaches ``stop`` and returns the next stop (or raises to end the search)."},
    {NULL},
};

static PyTypeObject PlannerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "skillcheck.games.three_towers._planner.Planner",
    .tp_doc = PyDoc_STR("One resumable planner search (see skillcheck.games.three_towers.solver._Planner)."),
    .tp_basicsize = sizeof(Planner),
    .tp_itemsize = 0,
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_traverse = (traverseproc)Planner_traverse,
    .tp_clear = (inquiry)Planner_clear,
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Planner_init,
    .tp_dealloc = (destructor)Planner_dealloc,
    .tp_methods = Planner_methods,
    .tp_getset = Planner_getset,
};

static struct PyModuleDef planner_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "skillcheck.games.three_towers._planner",
    .m_doc = "The Three Towers planner's hot loop in C (optional; skillcheck.games.three_towers.solver falls back "
             "to the same search in Python).",
    .m_size = -1,
};

PyMODINIT_FUNC PyInit__planner(void)
{
    if (PyType_Ready(&PlannerType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&planner_module);
    if (!m)
        return NULL;
    Py_INCREF(&PlannerType);
    if (PyModule_AddObject(m, "Planner", (PyObject *)&PlannerType) < 0) {
        Py_DECREF(&PlannerType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "MAX_CARDS", MAX_CARDS) < 0 ||
        PyModule_AddIntConstant(m, "MAX_SPACES", MAX_SPACES) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
