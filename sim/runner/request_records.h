// A request's record (analysis/request_record.h) from its state in flight and
// where it came from, as the cluster simulation hands it to a recorder.
#ifndef KVROUTE_SIM_RUNNER_REQUEST_RECORDS_H_
#define KVROUTE_SIM_RUNNER_REQUEST_RECORDS_H_

#include "analysis/request_record.h"
#include "models/request.h"
#include "sim/runner/arrival_driver.h"

namespace kvroute::sim {

// `now` is when the request was done with (its completion when completed).
inline analysis::RequestRecord MakeRecord(const models::InFlightRequest& r, const ArrivalTag& tag,
                                          analysis::RequestRecord::Outcome outcome, Time now) {
  analysis::RequestRecord record;
  record.outcome = outcome;
  record.id = r.request.id;
  record.stage = tag.stage;
  record.client = tag.client;
  record.key = r.request.key;
  record.tenant = r.request.tenant;
  record.session = r.request.session;
  record.arrival = r.request.arrival;
  record.admitted = r.admitted_time;
  record.first_token = r.first_token_time;
  record.completed = outcome == analysis::RequestRecord::Outcome::kCompleted ? now : kNever;
  record.replica = r.replica;
  record.prompt_tokens = r.request.prompt_tokens;
  record.output_tokens = r.request.output_tokens;
  record.hit_tokens = r.hit_tokens;
  record.host_hit_tokens = r.host_hit_tokens;
  record.ssd_hit_tokens = r.ssd_hit_tokens;
  record.preemptions = r.preemptions;
  record.retries = r.retries;
  record.route_reason = r.route_reason;
  record.route_score = r.route_score;
  return record;
}

}  // namespace kvroute::sim

#endif  // KVROUTE_SIM_RUNNER_REQUEST_RECORDS_H_
