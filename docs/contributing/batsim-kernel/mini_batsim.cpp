// Batsim 4.2's actor structure on SimGrid 3.32, without Batsim: a research harness
// that shows how SimGrid's clock groups a run's events into scheduler requests.
// See README.md next to this file for what it is for and how to run it.
//
// Modelled on Batsim v4.2.0 (src/server.cpp, src/job_submitter.cpp,
// src/jobs_execution.cpp, src/task_execution.cpp, src/network.cpp, src/protocol.cpp,
// src/ipp.cpp): one server actor on the master host that handles one internal
// message at a time and calls the scheduler only when its mailbox is empty and no call
// is under way; a submitter that sends all jobs of one submission time in one message
// and sleeps for (next submission - clock after its last sleep); one request-reply
// actor per call that forwards each decision to the server as its own message, then
// SCHED_READY; one actor per job, on the job's first machine, that runs the job as a
// parallel task (run time x 1e9 flops per machine on 1 Gflop/s hosts, no
// communication: Batsim's parallel_homogeneous profile) under the ptask_L07 model,
// waits at most its walltime, and sends JOB_COMPLETED. Every internal message is a
// 1-byte communication, as in Batsim.
//
// The scheduler is not simulated: it is replayed.
//   mode "session": replies come from a recorded protocol session (replies.txt), and
//     each request this harness makes is compared with the recorded one
//     (requests.txt): same events in the same order, `now` within 1 us.
//   mode "oracle": each call starts the jobs whose recorded start (jobs.txt) is at
//     most 1 ms after the clock, on their recorded machines, once those are free; the
//     harness prints every job's start and finish, to compare the clock's drift with
//     the recorded schedule's, and each request as a `REQ now events` line on stderr.
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace sg = simgrid::s4u;

namespace {

struct Job {
  std::string id;
  double submit, walltime, flops, recorded_start;
  std::vector<int> machines;
  bool submitted = false, started = false;
  double start = -1, finish = -1;
};

struct Decision {
  double at;
  std::string job;
  std::vector<int> machines;
};

struct Reply {
  double now;
  std::vector<Decision> decisions;
};

enum class Kind { Submitted, Completed, Execute, Ready, Hello, Bye };

struct Message {
  Kind kind;
  std::vector<std::string> jobs;
  std::vector<int> machines;
};

bool oracle_mode = false;
std::vector<Job> jobs;
std::map<std::string, Job*> job_by_id;
std::vector<Job*> by_recorded_start;
std::vector<std::string> recorded_requests;
std::vector<Reply> recorded_replies;
std::vector<sg::Host*> machines; // resource id -> host (Batsim numbers hosts in name order)
std::vector<bool> busy;
sg::Host* master = nullptr;

std::vector<std::string> pending; // events of the next request
bool sched_ready = false, ends_sent = false, ends_acked = false;
int requests = 0, mismatches = 0, running = 0, completed = 0, submitted = 0, submitters_done = 0;

std::vector<int> parse_machines(const std::string& text)
{
  std::vector<int> out;
  std::stringstream ss(text);
  std::string part;
  while (std::getline(ss, part, ',')) {
    auto dash = part.find('-');
    int a = std::stoi(part.substr(0, dash));
    int b = dash == std::string::npos ? a : std::stoi(part.substr(dash + 1));
    for (int x = a; x <= b; x++)
      out.push_back(x);
  }
  return out;
}

// Batsim's send_message: a synchronous 1-byte put.
void send(Message* m)
{
  sg::Mailbox::by_name("server")->put(m, 1);
}

void compare(const std::string& made)
{
  int i = requests++;
  const std::string expected = i < (int)recorded_requests.size() ? recorded_requests[i] : "<none>";
  auto split = [](const std::string& x) {
    auto k = x.find(' ');
    return std::make_pair(strtod(x.substr(0, k).c_str(), nullptr), k == std::string::npos ? "" : x.substr(k));
  };
  auto [made_now, made_events]         = split(made);
  auto [expected_now, expected_events] = split(expected);
  if (made_events != expected_events || std::abs(made_now - expected_now) > 1e-6) {
    if (++mismatches <= 5)
      std::cerr << "request " << i << " differs\n  made     " << made << "\n  recorded " << expected << "\n";
  }
}

// One scheduler call (Batsim's request_reply_scheduler_process and
// JsonProtocolReader::parse_and_apply_message): the scheduler takes no simulated time;
// each decision reaches the server as its own message, at its timestamp.
void request_reply(std::string request)
{
  std::vector<Decision> decisions;
  // Batsim writes times for the scheduler with "%6f" (src/protocol.hpp), and the
  // scheduler answers at that time: its decisions wait for it (send_message_at_time).
  char written[64];
  snprintf(written, sizeof written, "%6f", sg::Engine::get_clock());
  double now = strtod(written, nullptr);
  if (oracle_mode) {
    requests++;
    fprintf(stderr, "REQ %s\n", request.c_str());
    for (Job* j : by_recorded_start) {
      if (j->recorded_start > now + 1e-3)
        break;
      if (!j->submitted || j->started)
        continue;
      if (std::any_of(j->machines.begin(), j->machines.end(), [](int m) { return busy[m]; }))
        continue;
      for (int m : j->machines)
        busy[m] = true;
      j->started = true;
      decisions.push_back({now, j->id, j->machines});
    }
  } else {
    compare(request);
    const Reply& reply = recorded_replies.at(requests - 1);
    decisions          = reply.decisions;
    now                = reply.now;
  }
  for (const Decision& d : decisions) {
    double clock = sg::Engine::get_clock();
    if (d.at > clock)
      sg::this_actor::sleep_for(d.at - clock);
    send(new Message{Kind::Execute, {d.job}, d.machines});
  }
  double clock = sg::Engine::get_clock();
  if (now > clock)
    sg::this_actor::sleep_for(now - clock);
  send(new Message{Kind::Ready, {}, {}});
}

void call_scheduler()
{
  char now[64];
  snprintf(now, sizeof now, "%.17g", sg::Engine::get_clock());
  std::string request = now;
  for (const auto& e : pending)
    request += " " + e;
  pending.clear();
  sg::Actor::create("request_reply", master, request_reply, request);
  sched_ready = false;
}

void job_process(Job* job, std::vector<int> alloc)
{
  std::vector<sg::Host*> hosts;
  for (int m : alloc)
    hosts.push_back(machines[m]);
  job->start = sg::Engine::get_clock();
  std::vector<double> flops(hosts.size(), job->flops);
  std::vector<double> bytes(hosts.size() * hosts.size(), 0.0);
  auto task = sg::this_actor::exec_init(hosts, flops, bytes);
  task->start();
  try {
    task->wait_for(job->walltime);
  } catch (const simgrid::TimeoutException&) {
    // Batsim kills the job at its walltime and reports it the same way.
  }
  send(new Message{Kind::Completed, {job->id}, {}});
}

void submitter()
{
  send(new Message{Kind::Hello, {}, {}});
  double current = sg::Engine::get_clock();
  std::vector<std::string> batch;
  for (auto& j : jobs) {
    if (j.submit > current) {
      if (!batch.empty())
        send(new Message{Kind::Submitted, batch, {}});
      batch.clear();
      sg::this_actor::sleep_for(j.submit - current);
      current = sg::Engine::get_clock();
    }
    batch.push_back(j.id);
  }
  if (!batch.empty())
    send(new Message{Kind::Submitted, batch, {}});
  send(new Message{Kind::Bye, {}, {}});
}

void server()
{
  pending.push_back("SIMULATION_BEGINS:-");
  call_scheduler();
  auto mailbox = sg::Mailbox::by_name("server");
  while (!ends_acked) {
    auto* m = mailbox->get<Message>();
    switch (m->kind) {
      case Kind::Submitted:
        for (auto& id : m->jobs) {
          job_by_id.at(id)->submitted = true;
          pending.push_back("JOB_SUBMITTED:" + id);
          submitted++;
        }
        break;
      case Kind::Completed: {
        Job* j    = job_by_id.at(m->jobs[0]);
        j->finish = sg::Engine::get_clock();
        for (int x : j->machines)
          busy[x] = false;
        pending.push_back("JOB_COMPLETED:" + j->id);
        running--;
        completed++;
        break;
      }
      case Kind::Execute: {
        Job* j = job_by_id.at(m->jobs[0]);
        running++;
        sg::Actor::create("job_" + j->id, machines[m->machines[0]], job_process, j, m->machines);
        break;
      }
      case Kind::Ready:
        sched_ready = true;
        if (ends_sent)
          ends_acked = true;
        break;
      case Kind::Hello:
        break;
      case Kind::Bye:
        submitters_done++;
        pending.push_back("NOTIFY:no_more_static_job_to_submit");
        break;
    }
    delete m;
    if (sched_ready && !ends_acked && mailbox->empty()) {
      if (!pending.empty()) {
        call_scheduler();
      } else if (submitters_done == 1 && running == 0 && completed == submitted && !ends_sent) {
        pending.push_back("SIMULATION_ENDS:-");
        call_scheduler();
        ends_sent = true;
      }
    }
  }
}

void read_inputs(const std::string& dir)
{
  std::ifstream jf(dir + "/jobs.txt");
  Job j;
  std::string alloc;
  while (jf >> j.id >> j.submit >> j.walltime >> j.flops >> j.recorded_start >> alloc) {
    j.machines = alloc == "-" ? std::vector<int>{} : parse_machines(alloc);
    jobs.push_back(j);
  }
  for (auto& x : jobs) {
    job_by_id[x.id] = &x;
    by_recorded_start.push_back(&x);
  }
  std::stable_sort(by_recorded_start.begin(), by_recorded_start.end(),
                   [](const Job* a, const Job* b) { return a->recorded_start < b->recorded_start; });
  if (oracle_mode)
    return;
  std::ifstream qf(dir + "/requests.txt");
  std::string line;
  while (std::getline(qf, line))
    recorded_requests.push_back(line);
  std::ifstream rf(dir + "/replies.txt");
  Reply r;
  int n;
  while (rf >> r.now >> n) {
    r.decisions.clear();
    for (int k = 0; k < n; k++) {
      Decision d;
      rf >> d.at >> d.job >> alloc;
      d.machines = parse_machines(alloc);
      r.decisions.push_back(d);
    }
    recorded_replies.push_back(r);
  }
}

} // namespace

int main(int argc, char** argv)
{
  sg::Engine engine(&argc, argv);
  if (argc != 4 || (std::string(argv[1]) != "session" && std::string(argv[1]) != "oracle")) {
    std::cerr << "usage: mini_batsim session|oracle PLATFORM.xml INPUT_DIR [--cfg=...]\n";
    return 2;
  }
  oracle_mode = std::string(argv[1]) == "oracle";
  engine.set_config("host/model:ptask_L07"); // as Batsim does
  engine.load_platform(argv[2]);
  read_inputs(argv[3]);
  std::map<std::string, sg::Host*> by_name;
  for (auto* h : engine.get_all_hosts()) {
    if (std::string(h->get_cname()).rfind("master", 0) == 0)
      master = h;
    else
      by_name[h->get_cname()] = h;
  }
  for (auto& [name, h] : by_name)
    machines.push_back(h);
  busy.assign(machines.size(), false);
  sg::Actor::create("server", master, server);
  sg::Actor::create("submitter", master, submitter);
  engine.run();
  if (oracle_mode) {
    for (auto& x : jobs)
      printf("%s %.6f %.6f\n", x.id.c_str(), x.start, x.finish);
    std::cerr << "requests " << requests << "\n";
  } else {
    std::cerr << "requests " << requests << " recorded " << recorded_requests.size() << " differing "
              << mismatches << "\n";
  }
  return mismatches == 0 ? 0 : 1;
}
