/*
 * The arena allocator of the batch API's large results (capi_many.c's
 * digest_many): fresh memory for the result objects, mapped in two
 * megabytes at a time.
 *
 * A million digests are a million new objects, 64 or 80 MB of memory that
 * pymalloc maps an arena (1 MiB) at a time as they are made, and that the
 * kernel then maps a page at a time, at the first write to each: about as
 * long as all the rest of digest_many together (measured on a virtual
 * machine: docs/development.md, "The kernels' measurements"). While a call
 * makes its result objects (the GIL held, no Python code run), the arena
 * allocator is the one in place wrapped by ours, which maps each new arena
 * in at once (MADV_POPULATE_WRITE: one call, not 256 faults); it is put back
 * before anything else can run. Only in a process of one interpreter (one
 * GIL guards every allocation, so no other thread reads the allocator
 * meanwhile), and without effect where the kernel lacks the advice (EINVAL,
 * ignored) or the memory is not a mapping of its own.
 *
 * Mapped in 4 KiB pages, a million SHA-512 digests still took a third of
 * sha512_many's time, and about a third of that in pages of 2 MiB
 * (transparent huge pages, MADV_HUGEPAGE; the figures, dated: the same
 * section of docs/development.md). So where the allocator in place is
 * CPython's own, which maps arenas with mmap and unmaps them with munmap
 * (every Linux build), the arenas are carved from 2 MiB pages of ours,
 * mapped and advised likewise:
 * whatever allocator frees them later, munmap does, a part of a page at a
 * time (the kernel splits the page), and the part of the last page that no
 * arena took is unmapped at the end of the call. Elsewhere, or if the kernel
 * refuses, the arenas are the wrapped allocator's, as above. */
#include "capi.h" /* Python.h first: it sets the C library's features (dladdr's) */

#if defined(__linux__)
#include <dlfcn.h>
#include <stdint.h>
#include <sys/mman.h>
#endif

#if defined(__linux__) && defined(MADV_POPULATE_WRITE) && !defined(Py_GIL_DISABLED)

static PyObjectArenaAllocator prefault_wrapped;
static int prefault_cpython; /* prefault_wrapped is CPython's own */
static char *huge_next;     /* the rest of our current 2 MiB page */
static size_t huge_left;

/* `size` bytes of a 2 MiB page of ours, mapped in, or NULL. */
static void *huge_slice(size_t size) {
    if (!prefault_cpython || size == 0 || HUGE_PAGE % size || size % 4096) return NULL;
    if (huge_left == 0) {
        /* twice the size, to cut an aligned page out of it */
        char *map = mmap(NULL, 2 * HUGE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
        if (map == MAP_FAILED) return NULL;
        char *page = (char *)(((uintptr_t)map + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
        char *end = map + 2 * HUGE_PAGE;
        if (page > map) (void)munmap(map, (size_t)(page - map));
        if (end > page + HUGE_PAGE) (void)munmap(page + HUGE_PAGE, (size_t)(end - page - HUGE_PAGE));
        (void)madvise(page, HUGE_PAGE, MADV_HUGEPAGE);
        (void)madvise(page, HUGE_PAGE, MADV_POPULATE_WRITE);
        huge_next = page;
        huge_left = HUGE_PAGE;
    }
    void *slice = huge_next;
    huge_next += size;
    huge_left -= size;
    return slice;
}

static void *prefault_alloc(void *ctx, size_t size) {
    (void)ctx;
    void *arena = huge_slice(size);
    if (arena != NULL) return arena;
    arena = prefault_wrapped.alloc(prefault_wrapped.ctx, size);
    if (arena != NULL) (void)madvise(arena, size, MADV_POPULATE_WRITE);
    return arena;
}

static void prefault_free(void *ctx, void *arena, size_t size) {
    (void)ctx;
    prefault_wrapped.free(prefault_wrapped.ctx, arena, size);
}

/* Whether f is in the same file as CPython's allocator (the interpreter or
 * libpython). */
static int in_cpython(void *f) {
    Dl_info theirs, ours;
    return dladdr(f, &theirs) && dladdr((void *)PyObject_Malloc, &ours) &&
           theirs.dli_fbase == ours.dli_fbase;
}

/* Whether arena allocator `a` is CPython's own, asked of dladdr once per
 * allocator seen: a call of it costs microseconds (4.5 us here), and
 * capi_prefault_begin runs once per window of 4,096 rows. */
static int cpython_allocator(const PyObjectArenaAllocator *a) {
    static PyObjectArenaAllocator seen;
    static int answer = -1;
    if (answer < 0 || seen.ctx != a->ctx || seen.alloc != a->alloc || seen.free != a->free) {
        seen = *a;
        answer = a->ctx == NULL && in_cpython((void *)a->alloc) && in_cpython((void *)a->free);
    }
    return answer;
}

/* Our allocator in place (1), or not (0: several interpreters). */
int capi_prefault_begin(void) {
    if (PyInterpreterState_Next(PyInterpreterState_Head()) != NULL) return 0;
    PyObjectArenaAllocator ours = {NULL, prefault_alloc, prefault_free};
    PyObject_GetArenaAllocator(&prefault_wrapped);
    prefault_cpython = cpython_allocator(&prefault_wrapped);
    PyObject_SetArenaAllocator(&ours);
    return 1;
}

void capi_prefault_end(int began) {
    if (began) PyObject_SetArenaAllocator(&prefault_wrapped);
}

/* At the end of a call: the part of our last page that no arena took. */
void capi_prefault_done(void) {
    if (huge_left) (void)munmap(huge_next, huge_left);
    huge_left = 0;
}
#else
int capi_prefault_begin(void) { return 0; }
void capi_prefault_end(int began) { (void)began; }
void capi_prefault_done(void) {}
#endif
