/*
 * dt_decode_mpi.c - decoding of MPI datatypes into agio_dt, cached on the type.
 *
 * Algorithm: MPI_Type_get_envelope / MPI_Type_get_contents (profiling names, MPI-3.1 4.1.13;
 * their _c variants on MPI-4 libraries, whose large-count contents are mapped back onto the
 * integer/address layout), recursively, mapping every combiner onto the pure builders:
 *   contiguous, vector, hvector      -> agio_dt_hvector (vector strides times the old extent)
 *   indexed, hindexed, *_block       -> agio_dt_hindexed (indexed displacements times the extent)
 *   struct                           -> agio_dt_struct
 *   subarray, darray                 -> agio_dt_subarray / agio_dt_darray (dt_array.c)
 *   resized                          -> agio_dt_resized;  dup -> the old type's decoding
 *   named (predefined), f90          -> one run at the true lb; types with holes (MPI_SHORT_INT)
 *                                       are probed once with MPI_Pack of an index pattern.
 * After building, the size must equal MPI_Type_size_x and the data must lie within the bounds of
 * MPI_Type_get_true_extent_x (otherwise AGIO_ETYPE: never a silently wrong map), and lb/extent
 * are set to what MPI_Type_get_extent_x reports, so struct alignment padding and MPI_LB/MPI_UB
 * markers come from the MPI itself at every level.
 * Caching: derived types carry the decoded node in an attribute (keyval created once under a
 * mutex; the copy callback shares the reference on MPI_Type_dup, the delete callback releases
 * it). Predefined types live in a small static table published with release/acquire ordering.
 * Invariants: every datatype handle returned by get_contents that is not predefined is freed
 * exactly once; MPI is only called on valid handles (so its error handler never fires); failures
 * are AGIO_ETYPE or AGIO_ENOMEM.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "agio_err.h"
#include "datatype_mpi.h"
#include "dt_node.h"

#if defined(OPEN_MPI) && !OMPI_ENABLE_MPI1_COMPAT
#define COMB_HVECTOR_INT OMPI_WAS_MPI_COMBINER_HVECTOR_INTEGER
#define COMB_HINDEXED_INT OMPI_WAS_MPI_COMBINER_HINDEXED_INTEGER
#define COMB_STRUCT_INT OMPI_WAS_MPI_COMBINER_STRUCT_INTEGER
#else
#define COMB_HVECTOR_INT MPI_COMBINER_HVECTOR_INTEGER
#define COMB_HINDEXED_INT MPI_COMBINER_HINDEXED_INTEGER
#define COMB_STRUCT_INT MPI_COMBINER_STRUCT_INTEGER
#endif

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- attribute cache (derived types) -------------------------------------------------------- */

static atomic_int keyval_ready;
static int keyval = MPI_KEYVAL_INVALID;

static int copy_attr(MPI_Datatype t, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)kv, (void)extra;
    *(void **)out = agio_dt_ref(in);
    *flag = 1;
    return MPI_SUCCESS;
}

static int delete_attr(MPI_Datatype t, int kv, void *val, void *extra)
{
    (void)t, (void)kv, (void)extra;
    agio_dt_release(val);
    return MPI_SUCCESS;
}

static int get_keyval(int *kv)
{
    int rc = 0;
    if (!atomic_load_explicit(&keyval_ready, memory_order_acquire)) {
        pthread_mutex_lock(&lock);
        if (!atomic_load_explicit(&keyval_ready, memory_order_relaxed)) {
            if (PMPI_Type_create_keyval(copy_attr, delete_attr, &keyval, NULL) == MPI_SUCCESS)
                atomic_store_explicit(&keyval_ready, 1, memory_order_release);
            else
                rc = AGIO_EINTERN;
        }
        pthread_mutex_unlock(&lock);
    }
    *kv = keyval;
    return rc;
}

/* ---- predefined types: a small table -------------------------------------------------------- */

enum { NAMED_MAX = 128 };
static struct {
    MPI_Datatype t;
    agio_dt *dt;
} named[NAMED_MAX];
static atomic_int nnamed;

static agio_dt *named_find(MPI_Datatype t)
{
    int n = atomic_load_explicit(&nnamed, memory_order_acquire);
    for (int i = 0; i < n; i++)
        if (named[i].t == t) return agio_dt_ref(named[i].dt);
    return NULL;
}

/* Publish dt for t (one reference moves to the table) unless another thread did; returns the
 * node to use, with a reference for the caller. */
static agio_dt *named_add(MPI_Datatype t, agio_dt *dt)
{
    pthread_mutex_lock(&lock);
    agio_dt *have = named_find(t);
    int n = atomic_load_explicit(&nnamed, memory_order_relaxed);
    if (!have && n < NAMED_MAX) {
        named[n].t = t;
        named[n].dt = agio_dt_ref(dt);
        atomic_store_explicit(&nnamed, n + 1, memory_order_release);
    }
    pthread_mutex_unlock(&lock);
    if (!have) return dt;
    agio_dt_release(dt);
    return have;
}

/* ---- building ------------------------------------------------------------------------------- */

static int built(agio_dt *dt, agio_dt **out)
{
    *out = dt;
    if (dt) return 0;
    return agio_dt_last_error() == AGIO_ENOMEM ? AGIO_ENOMEM : AGIO_ETYPE;
}

/* One run of len bytes at off. */
static agio_dt *run_at(int64_t off, int64_t len)
{
    int64_t one = 1;
    return agio_dt_hindexed(1, &one, &off, agio_dt_bytes(len));
}

/* Layout of a predefined type with holes: pack one instance from a buffer whose byte i holds i;
 * packed byte k then names the offset of data byte k. */
static agio_dt *probe_layout(MPI_Datatype t, MPI_Count size, MPI_Count tlb, MPI_Count text)
{
    unsigned char src[256], packed[256];
    int64_t offs[256], lens[256], n = 0;
    int pos = 0;
    if (tlb < 0 || tlb + text > 256 || size > 256) return agio_dt_fail(AGIO_ETYPE);
    for (int i = 0; i < 256; i++) src[i] = (unsigned char)i;
    if (PMPI_Pack(src, 1, t, packed, (int)sizeof packed, &pos, MPI_COMM_SELF) != MPI_SUCCESS ||
        pos != size)
        return agio_dt_fail(AGIO_ETYPE);
    for (int k = 0; k < pos; k++) {
        if (n > 0 && offs[n - 1] + lens[n - 1] == packed[k]) {
            lens[n - 1]++;
        } else {
            offs[n] = packed[k];
            lens[n++] = 1;
        }
    }
    return agio_dt_hindexed(n, lens, offs, agio_dt_bytes(1));
}

static int bounds_of(MPI_Datatype t, MPI_Count b[5]) /* size, lb, extent, true lb, true extent */
{
    if (PMPI_Type_size_x(t, &b[0]) != MPI_SUCCESS || b[0] == MPI_UNDEFINED ||
        PMPI_Type_get_extent_x(t, &b[1], &b[2]) != MPI_SUCCESS ||
        PMPI_Type_get_true_extent_x(t, &b[3], &b[4]) != MPI_SUCCESS)
        return AGIO_ETYPE;
    return 0;
}

/* Check *dt against MPI's own size and true bounds, then give it MPI's lb/extent. */
static int settle(MPI_Datatype t, agio_dt **dt)
{
    MPI_Count b[5];
    const struct agio_dt_info *in = agio_dt_info(*dt);
    int rc = bounds_of(t, b);
    /* The data must lie within MPI's true bounds. They may be wider than ours (MPICH counts the
     * bounds of empty members); narrower means MPI maps the data elsewhere (Open MPI 4.1 does
     * so for hvectors of stride -1): refuse rather than disagree with the MPI. */
    if (rc == 0 && (in->size != b[0] ||
                    (b[0] > 0 && (in->true_lb < b[3] ||
                                  in->true_lb + in->true_extent > b[3] + b[4]))))
        rc = AGIO_ETYPE;
    if (rc) {
        agio_dt_release(*dt);
        *dt = NULL;
        return rc;
    }
    return built(agio_dt_resized(*dt, b[1], b[2]), dt);
}

static int decode_named(MPI_Datatype t, agio_dt **out)
{
    MPI_Count b[5];
    agio_dt *dt = named_find(t);
    if (dt) {
        *out = dt;
        return 0;
    }
    int rc = bounds_of(t, b);
    if (rc) return rc;
    if (b[0] == 0 || b[0] == b[4])
        dt = run_at(b[3], b[0]);
    else
        dt = probe_layout(t, b[0], b[3], b[4]);
    rc = built(dt, &dt);
    if (rc == 0) rc = settle(t, &dt);
    if (rc == 0) dt = named_add(t, dt);
    *out = dt;
    return rc;
}

/* ---- derived types -------------------------------------------------------------------------- */

/* MPI_Type_get_envelope: e = {integers, addresses, large counts, datatypes}. MPI-4 libraries are
 * asked through the _c variant, which also answers for types built with large counts (MPICH
 * fails the plain call on those, fatally under the default error handler). */
static int envelope(MPI_Datatype t, int64_t e[4], int *comb)
{
#if MPI_VERSION >= 4
    MPI_Count ni, na, nl, nd;
    if (PMPI_Type_get_envelope_c(t, &ni, &na, &nl, &nd, comb) != MPI_SUCCESS) return AGIO_ETYPE;
#else
    int ni, na, nd, nl = 0;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, comb) != MPI_SUCCESS) return AGIO_ETYPE;
#endif
    e[0] = ni;
    e[1] = na;
    e[2] = nl;
    e[3] = nd;
    return e[0] < 0 || e[1] < 0 || e[2] < 0 || e[3] < 0 ? AGIO_ETYPE : 0;
}

static int is_predefined(int comb)
{
    return comb == MPI_COMBINER_NAMED || comb == MPI_COMBINER_F90_REAL ||
           comb == MPI_COMBINER_F90_COMPLEX || comb == MPI_COMBINER_F90_INTEGER;
}

/* get_contents returns new handles for derived types: the caller frees them (MPI-3.1 4.1.13). */
static void free_if_derived(MPI_Datatype t)
{
    int64_t e[4];
    int comb;
    if (t != MPI_DATATYPE_NULL && envelope(t, e, &comb) == 0 && !is_predefined(comb))
        PMPI_Type_free(&t);
}

/* Contents of one derived type in the integer/address layout of MPI-3.1 4.1.13, every value
 * widened to 64 bits; large-count contents (MPI-4.0 5.1.13) are mapped onto that layout. */
struct contents {
    int comb;
    int64_t ni, na, nd;
    int64_t *I, *A;
    MPI_Datatype *T;
    agio_dt **K; /* decoded T */
    int64_t *w;  /* scratch: 2 * (ni + na) + 2 entries */
    int *dist;   /* scratch: ni + 1 entries */
};

/* Integers that precede the addresses when a large-count type lists all its numbers as counts
 * (the MPI-4.0 table keeps the order of the integer version: integers first, then addresses). */
static int64_t large_ints(int comb, const int64_t *L, int64_t nl)
{
    int64_t n = nl > 0 ? L[0] : 0;
    switch (comb) {
    case MPI_COMBINER_CONTIGUOUS: return 1;
    case MPI_COMBINER_VECTOR: return 3;
    case MPI_COMBINER_HVECTOR: return 2;
    case MPI_COMBINER_INDEXED: return 2 * n + 1;
    case MPI_COMBINER_HINDEXED: return n + 1;
    case MPI_COMBINER_INDEXED_BLOCK: return n + 2;
    case MPI_COMBINER_HINDEXED_BLOCK: return 2;
    case MPI_COMBINER_STRUCT: return n + 1;
    default: return 0; /* resized: lb and extent are addresses */
    }
}

/* Map large-count contents (ints ri, counts L) onto the integer/address layout of c. */
static int normalize_large(struct contents *c, const int64_t *ri, int64_t ni, const int64_t *L,
                           int64_t nl)
{
    int64_t n, k = 0;
    if (c->comb == MPI_COMBINER_SUBARRAY && ni >= 2 && (n = ri[0]) >= 0 && nl >= 3 * n) {
        c->I[k++] = n; /* ndims, sizes, subsizes, starts, order */
        for (int64_t i = 0; i < 3 * n; i++) c->I[k++] = L[i];
        c->I[k++] = ri[1];
    } else if (c->comb == MPI_COMBINER_DARRAY && ni >= 3 && (n = ri[2]) >= 0 && nl >= n &&
               ni >= 3 * n + 4) {
        for (int64_t i = 0; i < 3; i++) c->I[k++] = ri[i]; /* size, rank, ndims */
        for (int64_t i = 0; i < n; i++) c->I[k++] = L[i];  /* gsizes */
        for (int64_t i = 3; i < 3 * n + 4; i++) c->I[k++] = ri[i];
    } else {
        k = large_ints(c->comb, L, nl);
        if (k < 0 || k > nl) return AGIO_ETYPE;
        for (int64_t i = 0; i < nl; i++) *(i < k ? &c->I[i] : &c->A[i - k]) = L[i];
        c->na = nl - k;
    }
    c->ni = k;
    return 0;
}

/* Fetch and normalize the contents of t (envelope e); allocates the arrays of c. */
static int fetch_contents(MPI_Datatype t, const int64_t e[4], struct contents *c)
{
    int64_t ni = e[0], na = e[1], nl = e[2], nd = e[3], m = ni + na + nl + 2;
    if (m > INT32_MAX || nd > INT32_MAX) return AGIO_ENOMEM;
    int *ri = malloc(((size_t)ni + 1) * sizeof *ri);
    MPI_Aint *ra = malloc(((size_t)na + 1) * sizeof *ra);
    int64_t *L = malloc(((size_t)nl + 1) * sizeof *L);
    c->I = malloc((size_t)m * sizeof *c->I);
    c->A = malloc((size_t)m * sizeof *c->A);
    c->T = malloc(((size_t)nd + 1) * sizeof *c->T);
    c->K = calloc((size_t)nd + 1, sizeof *c->K);
    c->w = malloc((2 * (size_t)m + 2) * sizeof *c->w);
    c->dist = malloc((size_t)m * sizeof *c->dist);
    int rc = ri && ra && L && c->I && c->A && c->T && c->K && c->w && c->dist ? 0 : AGIO_ENOMEM;
#if MPI_VERSION >= 4
    MPI_Count *rl = (MPI_Count *)L;
    _Static_assert(sizeof(MPI_Count) == sizeof(int64_t), "MPI_Count is 64 bits");
    if (rc == 0 && PMPI_Type_get_contents_c(t, ni, na, nl, nd, ri, ra, rl, c->T) != MPI_SUCCESS)
        rc = AGIO_ETYPE;
#else
    if (rc == 0 && PMPI_Type_get_contents(t, (int)ni, (int)na, (int)nd, ri, ra, c->T) !=
                       MPI_SUCCESS)
        rc = AGIO_ETYPE;
#endif
    c->nd = rc == 0 ? nd : 0; /* only handles MPI returned are freed */
    for (int64_t i = 0; rc == 0 && i < ni; i++) c->w[i] = ri[i];
    if (rc == 0 && nl > 0) {
        rc = normalize_large(c, c->w, ni, L, nl);
    } else if (rc == 0) {
        for (int64_t i = 0; i < ni; i++) c->I[i] = ri[i];
        for (int64_t i = 0; i < na; i++) c->A[i] = ra[i];
        c->ni = ni;
        c->na = na;
    }
    free(ri);
    free(ra);
    free(L);
    return rc;
}

/* Are the arrays long enough for what the combiner reads? */
static int contents_ok(const struct contents *c)
{
    const int64_t *I = c->I;
    int64_t n = c->ni > 0 ? I[0] : -1, ni = c->ni, na = c->na;
    switch (c->comb) {
    case MPI_COMBINER_DUP: return c->nd >= 1;
    case MPI_COMBINER_CONTIGUOUS: return ni >= 1;
    case MPI_COMBINER_VECTOR: return ni >= 3;
    case MPI_COMBINER_HVECTOR:
    case COMB_HVECTOR_INT: return ni >= 2 && na >= 1;
    case MPI_COMBINER_INDEXED: return n >= 0 && ni >= 2 * n + 1;
    case MPI_COMBINER_HINDEXED:
    case COMB_HINDEXED_INT: return n >= 0 && ni >= n + 1 && na >= n;
    case MPI_COMBINER_INDEXED_BLOCK: return n >= 0 && ni >= n + 2;
    case MPI_COMBINER_HINDEXED_BLOCK: return n >= 0 && ni >= 2 && na >= n;
    case MPI_COMBINER_STRUCT:
    case COMB_STRUCT_INT: return n >= 0 && ni >= n + 1 && na >= n && c->nd >= n;
    case MPI_COMBINER_SUBARRAY: return n >= 0 && ni >= 3 * n + 2;
    case MPI_COMBINER_DARRAY: return ni >= 3 && I[2] >= 0 && I[2] <= 64 && ni >= 4 * I[2] + 4;
    case MPI_COMBINER_RESIZED: return na >= 2;
    default: return 0;
    }
}

/* dst[i] = src[i] * scale; returns 1 on overflow. */
static int scaled(const int64_t *src, int64_t n, int64_t scale, int64_t *dst)
{
    int ovf = 0;
    for (int64_t i = 0; i < n; i++) ovf |= __builtin_mul_overflow(src[i], scale, &dst[i]);
    return ovf;
}

static agio_dt *build_darray(const struct contents *c, agio_dt *old)
{
    const int64_t *I = c->I;
    int64_t n = I[2];
    int order = I[3 + 4 * n] == MPI_ORDER_C ? AGIO_DT_ORDER_C : AGIO_DT_ORDER_FORTRAN;
    int64_t *dargs = c->w;
    for (int64_t d = 0; d < n; d++) {
        int64_t dist = I[3 + n + d], darg = I[3 + 2 * n + d];
        c->dist[d] = dist == MPI_DISTRIBUTE_BLOCK    ? AGIO_DT_DIST_BLOCK
                     : dist == MPI_DISTRIBUTE_CYCLIC ? AGIO_DT_DIST_CYCLIC
                                                     : AGIO_DT_DIST_NONE;
        dargs[d] = darg == MPI_DISTRIBUTE_DFLT_DARG ? AGIO_DT_DARG_DFLT : darg;
    }
    return agio_dt_darray(I[0], I[1], (int)n, I + 3, c->dist, dargs, I + 3 + 3 * n, order, old);
}

/* A displacement in multiples of the old extent that does not fit 64 bits. */
static agio_dt *too_far(agio_dt *old)
{
    agio_dt_release(old);
    return agio_dt_fail(AGIO_EOVERFLOW);
}

/* The node for one combiner (contents_ok(c) holds); consumes the references in c->K. */
static agio_dt *build_comb(const struct contents *c)
{
    const int64_t *I = c->I, *A = c->A;
    agio_dt *k0 = c->K[0]; /* NULL only for a struct of no blocks */
    int64_t ext = k0 ? agio_dt_info(k0)->extent : 0, *w = c->w, n = I[0];
    switch (c->comb) {
    case MPI_COMBINER_DUP:
        return k0;
    case MPI_COMBINER_CONTIGUOUS:
        return agio_dt_hvector(n, 1, ext, k0);
    case MPI_COMBINER_VECTOR:
        return scaled(I + 2, 1, ext, w) ? too_far(k0) : agio_dt_hvector(n, I[1], w[0], k0);
    case MPI_COMBINER_HVECTOR:
    case COMB_HVECTOR_INT:
        return agio_dt_hvector(n, I[1], A[0], k0);
    case MPI_COMBINER_INDEXED:
        return scaled(I + 1 + n, n, ext, w) ? too_far(k0) : agio_dt_hindexed(n, I + 1, w, k0);
    case MPI_COMBINER_HINDEXED:
    case COMB_HINDEXED_INT:
        return agio_dt_hindexed(n, I + 1, A, k0);
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int64_t i = 0; i < n; i++) w[i] = I[1];
        if (c->comb == MPI_COMBINER_HINDEXED_BLOCK) return agio_dt_hindexed(n, w, A, k0);
        return scaled(I + 2, n, ext, w + n) ? too_far(k0) : agio_dt_hindexed(n, w, w + n, k0);
    case MPI_COMBINER_STRUCT:
    case COMB_STRUCT_INT:
        return agio_dt_struct(n, I + 1, A, c->K);
    case MPI_COMBINER_SUBARRAY:
        return agio_dt_subarray((int)n, I + 1, I + 1 + n, I + 1 + 2 * n,
                                I[1 + 3 * n] == MPI_ORDER_C ? AGIO_DT_ORDER_C
                                                            : AGIO_DT_ORDER_FORTRAN,
                                k0);
    case MPI_COMBINER_DARRAY:
        return build_darray(c, k0);
    default: /* MPI_COMBINER_RESIZED */
        return agio_dt_resized(k0, A[0], A[1]);
    }
}

static int decode(MPI_Datatype t, agio_dt **out);

static int decode_derived(MPI_Datatype t, const int64_t e[4], int comb, agio_dt **out)
{
    struct contents c = {.comb = comb};
    int rc = fetch_contents(t, e, &c);
    for (int64_t i = 0; rc == 0 && i < c.nd; i++) rc = decode(c.T[i], &c.K[i]);
    for (int64_t i = 0; i < c.nd; i++) free_if_derived(c.T[i]);
    /* every derived combiner has an old type, but a struct may have none */
    if (rc == 0 && (!contents_ok(&c) || (c.nd == 0 && comb != MPI_COMBINER_STRUCT &&
                                         comb != COMB_STRUCT_INT)))
        rc = AGIO_ETYPE;
    if (rc == 0) {
        rc = built(build_comb(&c), out);
    } else {
        for (int64_t i = 0; i < c.nd; i++) agio_dt_release(c.K[i]);
    }
    free(c.I);
    free(c.A);
    free(c.T);
    free(c.K);
    free(c.w);
    free(c.dist);
    return rc;
}

static int decode(MPI_Datatype t, agio_dt **out)
{
    int64_t e[4];
    int comb, kv, flag = 0;
    void *val = NULL;
    *out = NULL;
    if (t == MPI_DATATYPE_NULL || envelope(t, e, &comb)) return AGIO_ETYPE;
    if (is_predefined(comb)) return decode_named(t, out);
    int cache = get_keyval(&kv) == 0;
    if (cache && PMPI_Type_get_attr(t, kv, &val, &flag) == MPI_SUCCESS && flag) {
        *out = agio_dt_ref(val);
        return 0;
    }
    int rc = decode_derived(t, e, comb, out);
    if (rc == 0) rc = settle(t, out);
    /* two threads may both get here: the second set replaces (and releases) the first value */
    if (rc == 0 && cache && PMPI_Type_set_attr(t, kv, agio_dt_ref(*out)) != MPI_SUCCESS)
        agio_dt_release(*out);
    return rc;
}

/* Derived types must be committed before use in a data access or view (children need not be).
 * No MPI call reports commitment directly; a zero-count MPI_Pack checks it in both MPIs. The
 * check runs on every top-level use: a type may have been decoded (and cached) as an
 * uncommitted child of another type. */
static MPI_Comm probe_comm = MPI_COMM_NULL;

static int committed(MPI_Datatype t)
{
    int pos = 0;
    char b[1];
    pthread_mutex_lock(&lock);
    if (probe_comm == MPI_COMM_NULL && PMPI_Comm_dup(MPI_COMM_SELF, &probe_comm) == MPI_SUCCESS)
        PMPI_Comm_set_errhandler(probe_comm, MPI_ERRORS_RETURN);
    MPI_Comm c = probe_comm;
    pthread_mutex_unlock(&lock);
    return c == MPI_COMM_NULL || PMPI_Pack(b, 0, t, b, 1, &pos, c) == MPI_SUCCESS;
}

int agio_dt_from_mpi(MPI_Datatype t, agio_dt **out)
{
    int64_t e[4];
    int comb;
    *out = NULL;
    if (t == MPI_DATATYPE_NULL || envelope(t, e, &comb)) return AGIO_ETYPE;
    if (!is_predefined(comb) && !committed(t)) return AGIO_ETYPE;
    return decode(t, out);
}

void agio_dt_mpi_finalize(void)
{
    int done = 0;
    pthread_mutex_lock(&lock);
    PMPI_Finalized(&done);
    if (atomic_load_explicit(&keyval_ready, memory_order_relaxed) && !done)
        PMPI_Type_free_keyval(&keyval);
    atomic_store_explicit(&keyval_ready, 0, memory_order_relaxed);
    if (probe_comm != MPI_COMM_NULL && !done) PMPI_Comm_free(&probe_comm);
    probe_comm = MPI_COMM_NULL;
    int n = atomic_load_explicit(&nnamed, memory_order_relaxed);
    atomic_store_explicit(&nnamed, 0, memory_order_release);
    for (int i = 0; i < n; i++) agio_dt_release(named[i].dt);
    pthread_mutex_unlock(&lock);
}
