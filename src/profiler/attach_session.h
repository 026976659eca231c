// A session umbra began by attaching to a running program (`umbra attach`), from InitializeForAttach to
// ProfilerDetachSucceeded.
//
// The launcher's settings arrive as client data (attach_settings.h). umbra's messages go to a log in the launcher's
// control directory, never to the program's stderr. A thread of umbra's own (it never runs managed code) waits for
// the end: the duration, a stop byte on the control FIFO (the launcher's Ctrl-C), or the launcher going away (the
// FIFO's last writer closing). Then it stops the sampler and waits for its thread, writes the report, puts back the
// signal handlers the sampler installed, and asks the runtime to detach umbra. The runtime's detach thread calls
// ProfilerDetachSucceeded once no thread is inside umbra; there finish_detach() waits for umbra's thread to have
// returned, so that no code of the library runs when the runtime unloads it.
// Why a FIFO and not a signal: any signal umbra took could be one the program uses, and a second IPC command does
// not exist; the FIFO also tells umbra when the launcher is gone.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <thread>

#include "clr/corprof.h"
#include "profiler/attach_settings.h"
#include "profiler/config.h"

namespace umbra {

class Session;

class AttachSession {
 public:
  // Reads the client data into `config` (sampled mode forced, messages to the control directory's log) and opens
  // the control FIFO. Nothing, with the reason in `problem`, when the attach must be refused.
  static std::unique_ptr<AttachSession> open(std::string_view client_data, Config& config, std::string& problem);
  ~AttachSession();
  AttachSession(const AttachSession&) = delete;
  AttachSession& operator=(const AttachSession&) = delete;

  // Starts umbra's thread, which ends `session` and asks `info` for the detach.
  void start(Session& session, clr::ICorProfilerInfo3& info);
  // The program is ending (Shutdown has written the report): the thread returns without detaching.
  void on_shutdown();
  // Makes one of the control directory's markers (attach_settings.h).
  void mark(const char* marker) const;
  // In ProfilerDetachSucceeded: returns once umbra's thread has returned.
  void wait_for_thread();
  // At the very end: when the launcher went away without removing its control directory, umbra removes it.
  void remove_orphaned_control_dir() const;

 private:
  AttachSession(AttachSettings settings, int control_fd, int wake_fd);
  void run(Session& session, clr::ICorProfilerInfo3& info);
  // The report's trigger ("attach_duration", "attach_stopped", "attach_launcher_gone"), or nullptr when the
  // program is ending.
  const char* wait_for_end();

  const AttachSettings settings_;
  const int control_fd_;  // the FIFO's reading end
  const int wake_fd_;     // an eventfd: on_shutdown
  std::thread thread_;
  bool launcher_gone_ = false;  // written by the thread, read after it has returned
};

}  // namespace umbra
