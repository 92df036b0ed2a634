// Original file: proto/api/v1beta1/api.proto

import type { ObjectiveSpec as _api_v1_beta1_ObjectiveSpec, ObjectiveSpec__Output as _api_v1_beta1_ObjectiveSpec__Output } from '../../../api/v1/beta1/ObjectiveSpec.ts';
import type { ParameterAssignment as _api_v1_beta1_ParameterAssignment, ParameterAssignment__Output as _api_v1_beta1_ParameterAssignment__Output } from '../../../api/v1/beta1/ParameterAssignment.ts';

export interface _api_v1_beta1_TrialSpec_ParameterAssignments {
  'assignments'?: (_api_v1_beta1_ParameterAssignment)[];
}

export interface _api_v1_beta1_TrialSpec_ParameterAssignments__Output {
  'assignments': (_api_v1_beta1_ParameterAssignment__Output)[];
}

export interface TrialSpec {
  'objective'?: (_api_v1_beta1_ObjectiveSpec | null);
  'parameter_assignments'?: (_api_v1_beta1_TrialSpec_ParameterAssignments | null);
  'labels'?: ({[key: string]: string});
}

export interface TrialSpec__Output {
  'objective': (_api_v1_beta1_ObjectiveSpec__Output | null);
  'parameter_assignments': (_api_v1_beta1_TrialSpec_ParameterAssignments__Output | null);
  'labels': ({[key: string]: string});
}
