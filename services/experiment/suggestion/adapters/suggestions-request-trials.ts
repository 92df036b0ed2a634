// A GetSuggestionsRequest's trials read from their bytes (see suggestions-request.ts): Katib's
// controller sends every trial of the experiment in every request, so this is most of the work.

import type { ObjectiveSpec__Output } from '../../../../proto/gen/api/v1/beta1/ObjectiveSpec.ts';
import type { Observation__Output } from '../../../../proto/gen/api/v1/beta1/Observation.ts';
import type { Trial__Output } from '../../../../proto/gen/api/v1/beta1/Trial.ts';
import type {
  _api_v1_beta1_TrialSpec_ParameterAssignments__Output as ParameterAssignments,
  TrialSpec__Output,
} from '../../../../proto/gen/api/v1/beta1/TrialSpec.ts';
import type { TrialStatus__Output } from '../../../../proto/gen/api/v1/beta1/TrialStatus.ts';
import type { StepAsideReader } from '../../../../shared/protobuf/step-aside-reader.ts';
import { MAP_ENTRY } from '../../../../shared/protobuf/wire.ts';
import { TRIAL_CONDITIONS } from '../katib-space.ts';
import { enumName, readNameValue, readObjective } from './suggestions-request-parts.ts';
import { fields } from './suggestions-request-schema.ts';

const TRIAL = fields('api.v1.beta1.Trial');
const TRIAL_SPEC = fields('api.v1.beta1.TrialSpec');
const ASSIGNMENTS = fields('api.v1.beta1.TrialSpec.ParameterAssignments');
const TRIAL_STATUS = fields('api.v1.beta1.TrialStatus');
const OBSERVATION = fields('api.v1.beta1.Observation');

export function readTrial(r: StepAsideReader, end: number): Trial__Output {
  r.stringsFrom(end);
  let name = '';
  let spec: TrialSpec__Output | null = null;
  let status: TrialStatus__Output | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === TRIAL.name) name = r.string(tag, end);
    else if (field === TRIAL.spec) spec = readTrialSpec(r, r.messageEnd(tag, end));
    else if (field === TRIAL.status) status = readTrialStatus(r, r.messageEnd(tag, end));
    else r.skip(tag, end);
  }
  return { name, spec, status };
}
function readTrialSpec(r: StepAsideReader, end: number): TrialSpec__Output {
  const labels: Record<string, string> = {};
  let objective: ObjectiveSpec__Output | null = null;
  let assignments: ParameterAssignments | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === TRIAL_SPEC.objective) objective = readObjective(r, r.messageEnd(tag, end));
    else if (field === TRIAL_SPEC.parameter_assignments)
      assignments = readAssignments(r, r.messageEnd(tag, end));
    else if (field === TRIAL_SPEC.labels) readLabel(r, r.messageEnd(tag, end), labels);
    else r.skip(tag, end);
  }
  return { labels, objective, parameter_assignments: assignments };
}
function readAssignments(r: StepAsideReader, end: number): ParameterAssignments {
  const assignments: { name: string; value: string }[] = [];
  while (r.at < end) {
    const tag = r.tag(end);
    if (tag >>> 3 === ASSIGNMENTS.assignments) assignments.push(readNameValue(r, r.messageEnd(tag, end)));
    else r.skip(tag, end);
  }
  return { assignments };
}
/** One map<string, string> entry (MAP_ENTRY): a key seen again takes the later value. */
function readLabel(r: StepAsideReader, end: number, labels: Record<string, string>): void {
  let key = '';
  let value = '';
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === MAP_ENTRY.key) key = r.string(tag, end);
    else if (field === MAP_ENTRY.value) value = r.string(tag, end);
    else r.skip(tag, end);
  }
  // An own "__proto__" key, as protobufjs makes it, rather than a new prototype.
  if (key === '__proto__') {
    Object.defineProperty(labels, key, { value, enumerable: true, configurable: true, writable: true });
  } else labels[key] = value;
}
function readTrialStatus(r: StepAsideReader, end: number): TrialStatus__Output {
  let startTime = '';
  let completionTime = '';
  let condition = 0;
  let observation: Observation__Output | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === TRIAL_STATUS.start_time) startTime = r.string(tag, end);
    else if (field === TRIAL_STATUS.completion_time) completionTime = r.string(tag, end);
    else if (field === TRIAL_STATUS.condition) condition = r.int32(tag, end);
    else if (field === TRIAL_STATUS.observation) observation = readObservation(r, r.messageEnd(tag, end));
    else r.skip(tag, end);
  }
  return {
    start_time: startTime,
    completion_time: completionTime,
    condition: enumName(TRIAL_CONDITIONS, condition),
    observation,
  };
}
function readObservation(r: StepAsideReader, end: number): Observation__Output {
  const metrics: { name: string; value: string }[] = [];
  while (r.at < end) {
    const tag = r.tag(end);
    if (tag >>> 3 === OBSERVATION.metrics) metrics.push(readNameValue(r, r.messageEnd(tag, end)));
    else r.skip(tag, end);
  }
  return { metrics };
}
