/*
 * fcntl_lock: the one thing Node cannot do for Foresight's local backend, taking the same advisory
 * lock on a state file that Terraform's local backend takes, so that a running `terraform` and a running
 * `foresight` exclude each other.
 *
 * Terraform (internal/states/statemgr, Unix) takes a POSIX record lock: fcntl(F_SETLK) with F_WRLCK over the
 * whole file, non-blocking; on Windows it takes LockFileEx(LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY).
 *
 * On Linux this addon takes an open-file-description lock (F_OFD_SETLK) instead of a process lock. The kernel
 * makes OFD locks and classic POSIX record locks conflict with each other, so Terraform is excluded all the
 * same, and an OFD lock is owned by the descriptor rather than the process: closing some other descriptor of the
 * same file in this process (a plain fs.readFileSync of the state) does not silently drop it, and two lockers in
 * one Node process exclude each other (which the tests rely on). Where F_OFD_SETLK is missing (other Unixes,
 * or kernels before 3.15 answering EINVAL) it falls back to F_SETLK.
 *
 * Exports (all synchronous, never block):
 *   lock(fd)   -> 0 on success, else the errno (EAGAIN/EACCES: held by someone else).
 *   unlock(fd) -> 0 on success, else the errno.
 *   kind()     -> "ofd", "posix" or "windows": which mechanism lock() uses first.
 * The JavaScript side (server/backends/local/flock.ts) turns errno values into Go's error texts.
 */
#define _GNU_SOURCE
#include <node_api.h>
#include <errno.h>
#include <string.h>
#ifdef _WIN32
#include <windows.h>
#include <io.h>
#else
#include <fcntl.h>
#include <unistd.h>
#endif

static int get_fd(napi_env env, napi_callback_info info, int *fd) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t v;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1) return 0;
  if (napi_get_value_int32(env, argv[0], &v) != napi_ok) return 0;
  *fd = (int)v;
  return 1;
}

static napi_value result(napi_env env, int code) {
  napi_value out;
  napi_create_int32(env, code, &out);
  return out;
}

#ifdef _WIN32
static int do_lock(int fd, int lock) {
  HANDLE h = (HANDLE)_get_osfhandle(fd);
  OVERLAPPED ov;
  if (h == INVALID_HANDLE_VALUE) return EBADF;
  memset(&ov, 0, sizeof ov);
  if (lock) {
    if (!LockFileEx(h, LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, MAXDWORD, MAXDWORD, &ov)) return EAGAIN;
  } else {
    if (!UnlockFileEx(h, 0, MAXDWORD, MAXDWORD, &ov)) return EINVAL;
  }
  return 0;
}
static const char *kind_name = "windows";
#else
static int do_lock(int fd, int lock) {
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = lock ? F_WRLCK : F_UNLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = 0;
  fl.l_len = 0;
#ifdef F_OFD_SETLK
  fl.l_pid = 0;
  if (fcntl(fd, F_OFD_SETLK, &fl) == 0) return 0;
  if (errno != EINVAL) return errno;
  memset(&fl, 0, sizeof fl);
  fl.l_type = lock ? F_WRLCK : F_UNLCK;
  fl.l_whence = SEEK_SET;
#endif
  if (fcntl(fd, F_SETLK, &fl) == 0) return 0;
  return errno;
}
#ifdef F_OFD_SETLK
static const char *kind_name = "ofd";
#else
static const char *kind_name = "posix";
#endif
#endif

static napi_value Lock(napi_env env, napi_callback_info info) {
  int fd;
  if (!get_fd(env, info, &fd)) return result(env, EBADF);
  return result(env, do_lock(fd, 1));
}

static napi_value Unlock(napi_env env, napi_callback_info info) {
  int fd;
  if (!get_fd(env, info, &fd)) return result(env, EBADF);
  return result(env, do_lock(fd, 0));
}

static napi_value Kind(napi_env env, napi_callback_info info) {
  napi_value out;
  (void)info;
  napi_create_string_utf8(env, kind_name, NAPI_AUTO_LENGTH, &out);
  return out;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
    {"lock", NULL, Lock, NULL, NULL, NULL, napi_default, NULL},
    {"unlock", NULL, Unlock, NULL, NULL, NULL, napi_default, NULL},
    {"kind", NULL, Kind, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof props[0], props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
