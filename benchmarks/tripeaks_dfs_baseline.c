/*
 * The plain reference for the Tri Peaks solver's speed target (benchmarks/tripeaks_solver.py).
 *
 * A straightforward perfect-information depth-first search written in C: the tableau is a
 * 28-bit mask of removed cards, a position is (mask, stock index, waste top rank), and a hash
 * set of visited positions (open addressing, 64-bit keys) stops the search from entering a
 * position twice. Moves are tried in the obvious order: tableau positions 0..27 whose card is
 * free and one rank above or below the waste top (King-Ace too with wrap), then one card from
 * the stock. No move ordering heuristics, no pruning beyond the visited set.
 *
 * Input (stdin), one deal per line: the wrap flag (0 or 1), the first waste rank (0 = empty
 * waste) and then 28 tableau ranks followed by the stock ranks from the top (1..13 each), all
 * separated by spaces; at most 24 stock cards. Output: one line per deal, "win", "loss" or
 * "unknown" and the positions visited; then a summary line with the totals and the CPU seconds
 * the searches took (clock()).
 *
 * Build: cc -O2 -o tripeaks_dfs_baseline tripeaks_dfs_baseline.c
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NT 28
#define MAX_STOCK 24
#define ALL ((1u << NT) - 1)
#define MAX_POSITIONS 50000000L

static const uint32_t COVERS[NT] = {
    (1u << 3) | (1u << 4),   (1u << 5) | (1u << 6),   (1u << 7) | (1u << 8),
    (1u << 9) | (1u << 10),  (1u << 10) | (1u << 11), (1u << 12) | (1u << 13),
    (1u << 13) | (1u << 14), (1u << 15) | (1u << 16), (1u << 16) | (1u << 17),
    (1u << 18) | (1u << 19), (1u << 19) | (1u << 20), (1u << 20) | (1u << 21),
    (1u << 21) | (1u << 22), (1u << 22) | (1u << 23), (1u << 23) | (1u << 24),
    (1u << 24) | (1u << 25), (1u << 25) | (1u << 26), (1u << 26) | (1u << 27),
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

static int tableau[NT], stock[MAX_STOCK], nstock, wrap;
static uint64_t *table;
static size_t cap, used;
static long visited;

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* Adds key (never 0); returns 0 if it was there already. */
static int add(uint64_t key) {
    if (2 * (used + 1) > cap) {
        size_t old = cap;
        uint64_t *prev = table;
        cap = old ? 2 * old : 1 << 16;
        table = calloc(cap, sizeof *table);
        if (!table) { perror("calloc"); exit(1); }
        used = 0;
        for (size_t i = 0; i < old; i++) {
            if (prev[i]) {
                size_t j = mix(prev[i]) & (cap - 1);
                while (table[j]) j = (j + 1) & (cap - 1);
                table[j] = prev[i];
                used++;
            }
        }
        free(prev);
    }
    size_t j = mix(key) & (cap - 1);
    while (table[j]) {
        if (table[j] == key) return 0;
        j = (j + 1) & (cap - 1);
    }
    table[j] = key;
    used++;
    return 1;
}

static int adjacent(int a, int b) {
    int d = a - b;
    return d == 1 || d == -1 || (wrap && (d == 12 || d == -12));
}

/* 1 win, 0 loss, -1 out of budget */
static int dfs(uint32_t mask, int si, int top) {
    if (mask == ALL) return 1;
    uint64_t key = (uint64_t)mask | ((uint64_t)si << 28) | ((uint64_t)top << 34) | (1ULL << 40);
    if (!add(key)) return 0;
    if (++visited > MAX_POSITIONS) return -1;
    for (int p = 0; p < NT; p++) {
        if (mask & (1u << p)) continue;
        if (COVERS[p] & ~mask) continue;
        if (top && !adjacent(top, tableau[p])) continue;
        int r = dfs(mask | (1u << p), si, tableau[p]);
        if (r) return r;
    }
    if (si < nstock) return dfs(mask, si + 1, stock[si]);
    return 0;
}

int main(void) {
    int values[2 + NT + MAX_STOCK];
    char line[1024];
    long deals = 0, wins = 0, losses = 0, unknown = 0, total = 0;
    double seconds = 0;
    while (fgets(line, sizeof line, stdin)) {
        int n = 0;
        char *s = line, *end;
        for (;;) {
            long v = strtol(s, &end, 10);
            if (end == s) break;
            if (n == (int)(sizeof values / sizeof *values)) { fprintf(stderr, "line too long\n"); return 2; }
            values[n++] = (int)v;
            s = end;
        }
        if (n == 0) continue;
        if (n < 2 + NT) { fprintf(stderr, "short line\n"); return 2; }
        wrap = values[0];
        int waste = values[1];
        memcpy(tableau, values + 2, sizeof tableau);
        nstock = n - 2 - NT;
        memcpy(stock, values + 2 + NT, (size_t)nstock * sizeof *stock);
        clock_t began = clock();
        free(table); /* a fresh small table per deal: clearing a grown one would cost more */
        table = NULL;
        cap = used = 0;
        visited = 0;
        int r = dfs(0, 0, waste);
        seconds += (double)(clock() - began) / CLOCKS_PER_SEC;
        deals++;
        total += visited;
        if (r > 0) wins++; else if (r == 0) losses++; else unknown++;
        printf("%s %ld\n", r > 0 ? "win" : r == 0 ? "loss" : "unknown", visited);
    }
    printf("deals %ld wins %ld losses %ld unknown %ld positions %ld cpu_seconds %.6f\n", deals, wins,
           losses, unknown, total, seconds);
    free(table);
    return 0;
}
