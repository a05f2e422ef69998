/*
 * The kernels as the tests, describe() and the block benchmark see them: the
 * kernels of each core, dispatch's choice, which have run, and one kernel run
 * over whole blocks (the C-API module's share of dispatch.c; see capi.h).
 */
#include "capi.h"


PyDoc_STRVAR(kernels_doc, "kernels($module, /)\n--\n\n"
                          "Each core's kernels in this build, portable first: a tuple per core "
                          "(" VN_CORE_NAME_LIST ") of (id, name, usable on this CPU) triples.");

static PyObject *module_kernels(PyObject *module, PyObject *Py_UNUSED(ignored)) {
    (void)module;
    PyObject *result = PyTuple_New(VN_CORES);
    if (result == NULL) return NULL;
    for (int core = 0; core < VN_CORES; core++) {
        const int count = vn_kernel_count(core);
        PyObject *list = PyTuple_New(count);
        if (list == NULL) goto error;
        PyTuple_SET_ITEM(result, core, list);
        for (int i = 0; i < count; i++) {
            PyObject *pair = Py_BuildValue("(ssO)", vn_kernel_id(core, i), vn_kernel_name(core, i),
                                           vn_kernel_usable(core, i) ? Py_True : Py_False);
            if (pair == NULL) goto error;
            PyTuple_SET_ITEM(list, i, pair);
        }
    }
    return result;
error:
    Py_DECREF(result);
    return NULL;
}

PyDoc_STRVAR(ran_doc, "ran($module, core, index, /)\n--\n\n"
                      "Whether kernel number index of core has run in this process.");

static PyObject *module_ran(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "ran() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    const long core = PyLong_AsLong(args[0]), index = PyLong_AsLong(args[1]);
    if ((core == -1 || index == -1) && PyErr_Occurred()) return NULL;
    return PyBool_FromLong(vn_kernel_ran((int)core, (int)index));
}

PyDoc_STRVAR(chosen_doc, "chosen($module, core, /)\n--\n\n"
                         "The index of the kernel dispatch chose for core (its number: "
                         "variants.native._kernels.CORES).");

static PyObject *module_chosen(PyObject *module, PyObject *core) {
    (void)module;
    const long number = PyLong_AsLong(core);
    if (number == -1 && PyErr_Occurred()) return NULL;
    if (number < 0 || number >= VN_CORES) {
        PyErr_Format(PyExc_ValueError, "no core %ld", number);
        return NULL;
    }
    return PyLong_FromLong(vn_kernel_chosen((int)number));
}

PyDoc_STRVAR(compress_doc,
             "compress($module, core, kernel, state, data, /)\n--\n\n"
             "Run kernel number `kernel` of `core` (-1: the chosen one) over data, whole "
             "blocks (64 bytes; 128 for the SHA-512 core), from the chaining state (a tuple of "
             "up to 8 ints: 32-bit words; 64-bit for the SHA-512 core); the new state.");

static PyObject *module_compress(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    (void)module;
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "compress() takes 4 arguments (%zd given)", nargs);
        return NULL;
    }
    const long core = PyLong_AsLong(args[0]);
    const long index = PyLong_AsLong(args[1]);
    if ((core == -1 || index == -1) && PyErr_Occurred()) return NULL;
    if (core < 0 || core >= VN_CORES) {
        PyErr_Format(PyExc_ValueError, "no core %ld", core);
        return NULL;
    }
    PyObject *words = PySequence_Fast(args[2], "state must be a sequence of ints");
    if (words == NULL) return NULL;
    const int wide = vn_core_is_wide((int)core);
    const Py_ssize_t block = VN_BLOCK_SIZE(wide);
    uint32_t state[8] = {0};
    uint64_t state64[8] = {0};
    const Py_ssize_t count = PySequence_Fast_GET_SIZE(words);
    if (count > 8) {
        Py_DECREF(words);
        PyErr_SetString(PyExc_ValueError, "a state has at most 8 words");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *word = PySequence_Fast_GET_ITEM(words, i);
        if (wide) {
            state64[i] = (uint64_t)PyLong_AsUnsignedLongLongMask(word);
        } else {
            state[i] = (uint32_t)PyLong_AsUnsignedLongMask(word);
        }
    }
    Py_DECREF(words);
    if (PyErr_Occurred()) return NULL;
    Py_buffer view;
    if (capi_get_buffer(args[3], &view) < 0) return NULL;
    int status = -1;
    if (view.len % block == 0) {
        Py_BEGIN_ALLOW_THREADS
        status = vn_compress((int)core, (int)index, wide ? (void *)state64 : (void *)state,
                             view.buf, (size_t)(view.len / block));
        Py_END_ALLOW_THREADS
    }
    const Py_ssize_t length = view.len;
    PyBuffer_Release(&view);
    if (length % block) {
        PyErr_Format(PyExc_ValueError, "%zd bytes is not whole %zd-byte blocks", length, block);
        return NULL;
    }
    if (status < 0) {
        PyErr_Format(PyExc_ValueError, "no kernel %ld of core %ld runs on this CPU", index, core);
        return NULL;
    }
    PyObject *result = PyTuple_New(count);
    if (result == NULL) return NULL;
    for (Py_ssize_t i = 0; i < count; i++) {
        PyObject *word = wide ? PyLong_FromUnsignedLongLong(state64[i])
                              : PyLong_FromUnsignedLong(state[i]);
        if (word == NULL) {
            Py_DECREF(result);
            return NULL;
        }
        PyTuple_SET_ITEM(result, i, word);
    }
    return result;
}

PyMethodDef capi_kernel_methods[] = {
    {"kernels", module_kernels, METH_NOARGS, kernels_doc},
    {"chosen", module_chosen, METH_O, chosen_doc},
    {"ran", (PyCFunction)(void (*)(void))module_ran, METH_FASTCALL, ran_doc},
    {"compress", (PyCFunction)(void (*)(void))module_compress, METH_FASTCALL, compress_doc},
    {NULL, NULL, 0, NULL},
};
