# Build description of the fcntl lock addon (see fcntl_lock.c). Built by native/build.mjs during `npm ci`.
{
  "targets": [
    {
      "target_name": "fcntl_lock",
      "sources": ["fcntl_lock.c"]
    }
  ]
}
