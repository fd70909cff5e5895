// Copyright neardup authors. Licensed under Apache-2.0.
//
// The whole public API of the neardup library in one include:
//
//   #include <neardup/neardup.h>
//
//   status.h    Status and Result<T>, the one error model
//   document.h  Document: one page with its metadata
//   source.h    OpenDocumentSource: WARC/ARC, folders, JSON Lines
//   env.h       Env: files, injected (Env::Default() is POSIX)
//   executor.h  Executor: the threads the library may use
//   method.h    Method, NewMethod(spec): signatures, candidates, the pair rule
//   engine.h    DedupOptions, RunDedup: the batch job of `neardup dedup`
//   deduper.h   Deduper: add, remove, cluster
//   dedup_job.h DedupJob: the batch job in phases, divided among processes
//   compare.h   ComparePages: one pair through every method's eyes
//   kept_pages.h WriteKeptPages: a run's kept pages as JSON Lines or WARC
//
// Link with neardup::neardup (CMake: find_package(neardup CONFIG REQUIRED)).
#ifndef NEARDUP_NEARDUP_H_
#define NEARDUP_NEARDUP_H_

#include "neardup/compare.h"
#include "neardup/dedup_job.h"
#include "neardup/deduper.h"
#include "neardup/document.h"
#include "neardup/engine.h"
#include "neardup/env.h"
#include "neardup/executor.h"
#include "neardup/kept_pages.h"
#include "neardup/method.h"
#include "neardup/source.h"
#include "neardup/status.h"

#endif  // NEARDUP_NEARDUP_H_
