/*
 * stats.c - formatting of the stats table (stats_table.h) as text, JSON and documentation.
 *
 * Invariant: every output walks the table, so a new row appears everywhere without more code.
 */
#include "stats.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>

struct stat_row {
    const char *name;
    const char *kind;
    int sum;
    const char *doc;
};

static const struct stat_row rows[AGIO_ST_COUNT] = {
#define AGIO_X_ROW(name, kind, reduce, doc) {#name, #kind, (0 == strcmp(#reduce, "SUM")), doc},
    AGIO_STATS_TABLE(AGIO_X_ROW)
#undef AGIO_X_ROW
};

static const char *const bin_labels[AGIO_STATS_NBINS] = {"0",    "16",  "256", "4Ki",
                                                         "64Ki", "1Mi", "16Mi"};

uint64_t agio_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int agio_stats_bin(uint64_t len)
{
    int b = 0;
    while (b < AGIO_STATS_NBINS - 1 && len >= (16ull << (4 * b)))
        b++;
    return b;
}

const char *agio_stats_bin_label(int b)
{
    return (b >= 0 && b < AGIO_STATS_NBINS) ? bin_labels[b] : "?";
}

void agio_stats_sysio(struct agio_stats *s, int is_write, uint64_t len, uint64_t ns)
{
    if (!s) return;
    int b = agio_stats_bin(len);
    if (is_write) {
        agio_stats_add(s, AGIO_ST_sys_writes, 1);
        agio_stats_add(s, AGIO_ST_sys_write_bytes, len);
        agio_stats_add(s, AGIO_ST_sys_write_ns, ns);
        __atomic_fetch_add(&s->write_bins[b], 1, __ATOMIC_RELAXED);
    } else {
        agio_stats_add(s, AGIO_ST_sys_reads, 1);
        agio_stats_add(s, AGIO_ST_sys_read_bytes, len);
        agio_stats_add(s, AGIO_ST_sys_read_ns, ns);
        __atomic_fetch_add(&s->read_bins[b], 1, __ATOMIC_RELAXED);
    }
}

int agio_stats_slot_is_sum(unsigned slot)
{
    return slot < AGIO_ST_COUNT ? rows[slot].sum : 1; /* bins are summed */
}

static double secs(uint64_t ns)
{
    return (double)ns * 1e-9;
}

void agio_stats_print_text(FILE *out, const char *path, int nranks, const struct agio_stats *sum,
                           const struct agio_stats *max)
{
    fprintf(out, "agio stats: %s (%d ranks)\n", path, nranks);
    for (int i = 0; i < AGIO_ST_COUNT; i++) {
        const struct agio_stats *src = rows[i].sum ? sum : max;
        if (0 == strcmp(rows[i].kind, "NSEC"))
            fprintf(out, "  %-20s %12.6f s (max over ranks)\n", rows[i].name, secs(src->v[i]));
        else
            fprintf(out, "  %-20s %12" PRIu64 "%s\n", rows[i].name, src->v[i],
                    rows[i].sum ? "" : " (max over ranks)");
    }
    uint64_t w = sum->v[AGIO_ST_sys_writes], r = sum->v[AGIO_ST_sys_reads];
    fprintf(out, "  %-20s %12.0f B\n", "avg_sys_write", w ? (double)sum->v[AGIO_ST_sys_write_bytes] / (double)w : 0.0);
    fprintf(out, "  %-20s %12.0f B\n", "avg_sys_read", r ? (double)sum->v[AGIO_ST_sys_read_bytes] / (double)r : 0.0);
    fprintf(out, "  system I/O sizes     ");
    for (int b = 0; b < AGIO_STATS_NBINS; b++)
        fprintf(out, " %5s+", bin_labels[b]);
    fprintf(out, "\n    writes             ");
    for (int b = 0; b < AGIO_STATS_NBINS; b++)
        fprintf(out, " %6" PRIu64, sum->write_bins[b]);
    fprintf(out, "\n    reads              ");
    for (int b = 0; b < AGIO_STATS_NBINS; b++)
        fprintf(out, " %6" PRIu64, sum->read_bins[b]);
    fprintf(out, "\n");
}

static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

static void json_bins(FILE *out, const char *name, const uint64_t *bins)
{
    fprintf(out, ",\"%s\":[", name);
    for (int b = 0; b < AGIO_STATS_NBINS; b++)
        fprintf(out, "%s%" PRIu64, b ? "," : "", bins[b]);
    fputc(']', out);
}

void agio_stats_print_json(FILE *out, const char *path, int nranks, const struct agio_stats *sum,
                           const struct agio_stats *max)
{
    fprintf(out, "{\"format\":\"agio-stats\",\"version\":1,\"file\":");
    json_string(out, path);
    fprintf(out, ",\"ranks\":%d,\"counters\":{", nranks);
    for (int i = 0; i < AGIO_ST_COUNT; i++)
        fprintf(out, "%s\"%s\":%" PRIu64, i ? "," : "", rows[i].name,
                rows[i].sum ? sum->v[i] : max->v[i]);
    fputc('}', out);
    fprintf(out, ",\"bin_lower_bounds\":[");
    for (int b = 0; b < AGIO_STATS_NBINS; b++)
        fprintf(out, "%s%llu", b ? "," : "", b ? 16ull << (4 * (b - 1)) : 0ull);
    fputc(']', out);
    json_bins(out, "write_bins", sum->write_bins);
    json_bins(out, "read_bins", sum->read_bins);
    fputc('}', out);
}

void agio_stats_print_doc(FILE *out)
{
    fprintf(out, "| counter | kind | across ranks | meaning |\n|---|---|---|---|\n");
    for (int i = 0; i < AGIO_ST_COUNT; i++)
        fprintf(out, "| `%s` | %s | %s | %s |\n", rows[i].name, rows[i].kind,
                rows[i].sum ? "sum" : "max", rows[i].doc);
}
