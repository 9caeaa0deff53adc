/*
 * dt_decode_mpi.c - decoding of MPI datatypes into agio_dt, cached on the type.
 *
 * Algorithm: MPI_Type_get_envelope / MPI_Type_get_contents (profiling names, MPI-3.1 4.1.13),
 * recursively, mapping every combiner onto the pure builders (datatype.h):
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
 * exactly once; the library never aborts; failures are AGIO_ETYPE or AGIO_ENOMEM.
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

struct contents {
    int ni, na, nd, comb;
    int *I;
    MPI_Aint *A;
    MPI_Datatype *T;
    agio_dt **K;  /* decoded T */
    int64_t *w;   /* scratch for widened arrays: 4 * ni + 4 entries */
    int *dist;    /* scratch for darray distributions: ni entries */
};

/* dst[i] = src[i] * scale; 0 or 1 on overflow. */
static int widen(const int *src, int n, int64_t scale, int64_t *dst)
{
    int ovf = 0;
    for (int i = 0; i < n; i++) ovf |= __builtin_mul_overflow((int64_t)src[i], scale, &dst[i]);
    return ovf;
}

static void addrs(const MPI_Aint *src, int n, int64_t *dst)
{
    for (int i = 0; i < n; i++) dst[i] = (int64_t)src[i];
}

static agio_dt *build_darray(const struct contents *c, agio_dt *old)
{
    const int *I = c->I;
    int n = I[2], order = I[3 + 4 * n] == MPI_ORDER_C ? AGIO_DT_ORDER_C : AGIO_DT_ORDER_FORTRAN;
    int64_t *gs = c->w, *dargs = c->w + n, *ps = c->w + 2 * n;
    widen(I + 3, n, 1, gs);
    widen(I + 3 + 3 * n, n, 1, ps);
    for (int d = 0; d < n; d++) {
        int dist = I[3 + n + d], darg = I[3 + 2 * n + d];
        c->dist[d] = dist == MPI_DISTRIBUTE_BLOCK    ? AGIO_DT_DIST_BLOCK
                     : dist == MPI_DISTRIBUTE_CYCLIC ? AGIO_DT_DIST_CYCLIC
                                                     : AGIO_DT_DIST_NONE;
        dargs[d] = darg == MPI_DISTRIBUTE_DFLT_DARG ? AGIO_DT_DARG_DFLT : darg;
    }
    return agio_dt_darray(I[0], I[1], n, gs, c->dist, dargs, ps, order, old);
}

/* The node for one combiner; consumes the references in c->K. */
static agio_dt *build_comb(const struct contents *c)
{
    const int *I = c->I;
    agio_dt *k0 = c->nd > 0 ? c->K[0] : NULL;
    int64_t ext = k0 ? agio_dt_info(k0)->extent : 0, *w = c->w, s;
    int n = c->ni > 0 ? I[0] : 0, ovf = 0;
    switch (c->comb) {
    case MPI_COMBINER_DUP:
        return k0;
    case MPI_COMBINER_CONTIGUOUS:
        return agio_dt_hvector(n, 1, ext, k0);
    case MPI_COMBINER_VECTOR:
        ovf = __builtin_mul_overflow((int64_t)I[2], ext, &s);
        break;
    case MPI_COMBINER_HVECTOR:
    case COMB_HVECTOR_INT:
        return agio_dt_hvector(n, I[1], c->A[0], k0);
    case MPI_COMBINER_INDEXED:
        ovf = widen(I + 1, n, 1, w) | widen(I + 1 + n, n, ext, w + n);
        break;
    case MPI_COMBINER_HINDEXED:
    case COMB_HINDEXED_INT:
        widen(I + 1, n, 1, w);
        addrs(c->A, n, w + n);
        return agio_dt_hindexed(n, w, w + n, k0);
    case MPI_COMBINER_INDEXED_BLOCK:
        for (int i = 0; i < n; i++) w[i] = I[1];
        ovf = widen(I + 2, n, ext, w + n);
        break;
    case MPI_COMBINER_HINDEXED_BLOCK:
        for (int i = 0; i < n; i++) w[i] = I[1];
        addrs(c->A, n, w + n);
        return agio_dt_hindexed(n, w, w + n, k0);
    case MPI_COMBINER_STRUCT:
    case COMB_STRUCT_INT:
        widen(I + 1, n, 1, w);
        addrs(c->A, n, w + n);
        return agio_dt_struct(n, w, w + n, c->K);
    case MPI_COMBINER_SUBARRAY:
        widen(I + 1, 3 * n, 1, w);
        return agio_dt_subarray(n, w, w + n, w + 2 * n,
                                I[1 + 3 * n] == MPI_ORDER_C ? AGIO_DT_ORDER_C
                                                            : AGIO_DT_ORDER_FORTRAN,
                                k0);
    case MPI_COMBINER_DARRAY:
        return build_darray(c, k0);
    case MPI_COMBINER_RESIZED:
        return agio_dt_resized(k0, c->A[0], c->A[1]);
    default:
        for (int i = 0; i < c->nd; i++) agio_dt_release(c->K[i]);
        return agio_dt_fail(AGIO_ETYPE);
    }
    /* vector, indexed, indexed_block: displacements in multiples of the old extent */
    if (ovf) {
        agio_dt_release(k0);
        return agio_dt_fail(AGIO_EOVERFLOW);
    }
    if (c->comb == MPI_COMBINER_VECTOR) return agio_dt_hvector(n, I[1], s, k0);
    return agio_dt_hindexed(n, w, w + n, k0);
}

static int is_predefined(int comb)
{
    return comb == MPI_COMBINER_NAMED || comb == MPI_COMBINER_F90_REAL ||
           comb == MPI_COMBINER_F90_COMPLEX || comb == MPI_COMBINER_F90_INTEGER;
}

/* get_contents returns new handles for derived types: the caller frees them (MPI-3.1 4.1.13). */
static void free_if_derived(MPI_Datatype t)
{
    int ni, na, nd, comb;
    if (t != MPI_DATATYPE_NULL && PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) == MPI_SUCCESS &&
        !is_predefined(comb))
        PMPI_Type_free(&t);
}

static int decode(MPI_Datatype t, agio_dt **out);

static int decode_derived(MPI_Datatype t, int ni, int na, int nd, int comb, agio_dt **out)
{
    struct contents c = {ni, na, nd, comb, NULL, NULL, NULL, NULL, NULL, NULL};
    int rc = AGIO_ENOMEM;
    c.I = malloc(((size_t)ni + 1) * sizeof *c.I);
    c.A = malloc(((size_t)na + 1) * sizeof *c.A);
    c.T = malloc(((size_t)nd + 1) * sizeof *c.T);
    c.K = calloc((size_t)nd + 1, sizeof *c.K);
    c.w = malloc((4 * (size_t)ni + 4) * sizeof *c.w);
    c.dist = malloc(((size_t)ni + 1) * sizeof *c.dist);
    if (c.I && c.A && c.T && c.K && c.w && c.dist) {
        rc = PMPI_Type_get_contents(t, ni, na, nd, c.I, c.A, c.T) == MPI_SUCCESS ? 0 : AGIO_ETYPE;
        for (int i = 0; rc == 0 && i < nd; i++) rc = decode(c.T[i], &c.K[i]);
        for (int i = 0; i < nd && c.T; i++) free_if_derived(c.T[i]);
        if (rc == 0 && nd == 0 && comb != MPI_COMBINER_STRUCT && comb != COMB_STRUCT_INT)
            rc = AGIO_ETYPE; /* every other derived combiner has an old type */
    }
    if (rc == 0) {
        rc = built(build_comb(&c), out);
    } else {
        for (int i = 0; i < nd; i++) agio_dt_release(c.K[i]);
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
    int ni, na, nd, comb, kv, flag = 0;
    void *val = NULL;
    *out = NULL;
    if (t == MPI_DATATYPE_NULL) return AGIO_ETYPE;
    if (PMPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS) return AGIO_ETYPE;
    if (is_predefined(comb)) return decode_named(t, out);
    int cache = get_keyval(&kv) == 0;
    if (cache && PMPI_Type_get_attr(t, kv, &val, &flag) == MPI_SUCCESS && flag) {
        *out = agio_dt_ref(val);
        return 0;
    }
    int rc = decode_derived(t, ni, na, nd, comb, out);
    if (rc == 0) rc = settle(t, out);
    /* two threads may both get here: the second set replaces (and releases) the first value */
    if (rc == 0 && cache && PMPI_Type_set_attr(t, kv, agio_dt_ref(*out)) != MPI_SUCCESS)
        agio_dt_release(*out);
    return rc;
}

int agio_dt_from_mpi(MPI_Datatype t, agio_dt **out)
{
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
    int n = atomic_load_explicit(&nnamed, memory_order_relaxed);
    atomic_store_explicit(&nnamed, 0, memory_order_release);
    for (int i = 0; i < n; i++) agio_dt_release(named[i].dt);
    pthread_mutex_unlock(&lock);
}
