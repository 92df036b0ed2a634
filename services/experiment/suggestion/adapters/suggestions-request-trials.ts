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
import { TRIAL_CONDITIONS } from '../katib-space.ts';
import type { StepAsideReader } from '../../../../shared/protobuf/step-aside-reader.ts';
import { enumName, readNameValue, readObjective } from './suggestions-request-parts.ts';

export function readTrial(r: StepAsideReader, end: number): Trial__Output {
  r.stringsFrom(end);
  let name = '';
  let spec: TrialSpec__Output | null = null;
  let status: TrialStatus__Output | null = null;
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) name = r.string(tag, end);
    else if (field === 2) spec = readTrialSpec(r, r.messageEnd(tag, end));
    else if (field === 3) status = readTrialStatus(r, r.messageEnd(tag, end));
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
    if (field === 2) objective = readObjective(r, r.messageEnd(tag, end));
    else if (field === 3) assignments = readAssignments(r, r.messageEnd(tag, end));
    else if (field === 4) readLabel(r, r.messageEnd(tag, end), labels);
    else r.skip(tag, end);
  }
  return { labels, objective, parameter_assignments: assignments };
}
function readAssignments(r: StepAsideReader, end: number): ParameterAssignments {
  const assignments: { name: string; value: string }[] = [];
  while (r.at < end) {
    const tag = r.tag(end);
    if (tag >>> 3 === 1) assignments.push(readNameValue(r, r.messageEnd(tag, end)));
    else r.skip(tag, end);
  }
  return { assignments };
}
/** One map entry { string key = 1; string value = 2; }: a key seen again takes the later value. */
function readLabel(r: StepAsideReader, end: number, labels: Record<string, string>): void {
  let key = '';
  let value = '';
  while (r.at < end) {
    const tag = r.tag(end);
    const field = tag >>> 3;
    if (field === 1) key = r.string(tag, end);
    else if (field === 2) value = r.string(tag, end);
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
    if (field === 1) startTime = r.string(tag, end);
    else if (field === 2) completionTime = r.string(tag, end);
    else if (field === 3) condition = r.int32(tag, end);
    else if (field === 4) observation = readObservation(r, r.messageEnd(tag, end));
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
    if (tag >>> 3 === 1) metrics.push(readNameValue(r, r.messageEnd(tag, end)));
    else r.skip(tag, end);
  }
  return { metrics };
}
