import type * as grpc from '@grpc/grpc-js';
import type { EnumTypeDefinition, MessageTypeDefinition } from '@grpc/proto-loader';

import type { AlgorithmSetting as _api_v1_beta1_AlgorithmSetting, AlgorithmSetting__Output as _api_v1_beta1_AlgorithmSetting__Output } from './api/v1/beta1/AlgorithmSetting.ts';
import type { AlgorithmSpec as _api_v1_beta1_AlgorithmSpec, AlgorithmSpec__Output as _api_v1_beta1_AlgorithmSpec__Output } from './api/v1/beta1/AlgorithmSpec.ts';
import type { DBManagerClient as _api_v1_beta1_DBManagerClient, DBManagerDefinition as _api_v1_beta1_DBManagerDefinition } from './api/v1/beta1/DBManager.ts';
import type { DeleteObservationLogReply as _api_v1_beta1_DeleteObservationLogReply, DeleteObservationLogReply__Output as _api_v1_beta1_DeleteObservationLogReply__Output } from './api/v1/beta1/DeleteObservationLogReply.ts';
import type { DeleteObservationLogRequest as _api_v1_beta1_DeleteObservationLogRequest, DeleteObservationLogRequest__Output as _api_v1_beta1_DeleteObservationLogRequest__Output } from './api/v1/beta1/DeleteObservationLogRequest.ts';
import type { EarlyStoppingClient as _api_v1_beta1_EarlyStoppingClient, EarlyStoppingDefinition as _api_v1_beta1_EarlyStoppingDefinition } from './api/v1/beta1/EarlyStopping.ts';
import type { EarlyStoppingRule as _api_v1_beta1_EarlyStoppingRule, EarlyStoppingRule__Output as _api_v1_beta1_EarlyStoppingRule__Output } from './api/v1/beta1/EarlyStoppingRule.ts';
import type { EarlyStoppingSetting as _api_v1_beta1_EarlyStoppingSetting, EarlyStoppingSetting__Output as _api_v1_beta1_EarlyStoppingSetting__Output } from './api/v1/beta1/EarlyStoppingSetting.ts';
import type { EarlyStoppingSpec as _api_v1_beta1_EarlyStoppingSpec, EarlyStoppingSpec__Output as _api_v1_beta1_EarlyStoppingSpec__Output } from './api/v1/beta1/EarlyStoppingSpec.ts';
import type { Experiment as _api_v1_beta1_Experiment, Experiment__Output as _api_v1_beta1_Experiment__Output } from './api/v1/beta1/Experiment.ts';
import type { ExperimentSpec as _api_v1_beta1_ExperimentSpec, ExperimentSpec__Output as _api_v1_beta1_ExperimentSpec__Output } from './api/v1/beta1/ExperimentSpec.ts';
import type { FeasibleSpace as _api_v1_beta1_FeasibleSpace, FeasibleSpace__Output as _api_v1_beta1_FeasibleSpace__Output } from './api/v1/beta1/FeasibleSpace.ts';
import type { GetEarlyStoppingRulesReply as _api_v1_beta1_GetEarlyStoppingRulesReply, GetEarlyStoppingRulesReply__Output as _api_v1_beta1_GetEarlyStoppingRulesReply__Output } from './api/v1/beta1/GetEarlyStoppingRulesReply.ts';
import type { GetEarlyStoppingRulesRequest as _api_v1_beta1_GetEarlyStoppingRulesRequest, GetEarlyStoppingRulesRequest__Output as _api_v1_beta1_GetEarlyStoppingRulesRequest__Output } from './api/v1/beta1/GetEarlyStoppingRulesRequest.ts';
import type { GetObservationLogReply as _api_v1_beta1_GetObservationLogReply, GetObservationLogReply__Output as _api_v1_beta1_GetObservationLogReply__Output } from './api/v1/beta1/GetObservationLogReply.ts';
import type { GetObservationLogRequest as _api_v1_beta1_GetObservationLogRequest, GetObservationLogRequest__Output as _api_v1_beta1_GetObservationLogRequest__Output } from './api/v1/beta1/GetObservationLogRequest.ts';
import type { GetSuggestionsReply as _api_v1_beta1_GetSuggestionsReply, GetSuggestionsReply__Output as _api_v1_beta1_GetSuggestionsReply__Output } from './api/v1/beta1/GetSuggestionsReply.ts';
import type { GetSuggestionsRequest as _api_v1_beta1_GetSuggestionsRequest, GetSuggestionsRequest__Output as _api_v1_beta1_GetSuggestionsRequest__Output } from './api/v1/beta1/GetSuggestionsRequest.ts';
import type { GraphConfig as _api_v1_beta1_GraphConfig, GraphConfig__Output as _api_v1_beta1_GraphConfig__Output } from './api/v1/beta1/GraphConfig.ts';
import type { Metric as _api_v1_beta1_Metric, Metric__Output as _api_v1_beta1_Metric__Output } from './api/v1/beta1/Metric.ts';
import type { MetricLog as _api_v1_beta1_MetricLog, MetricLog__Output as _api_v1_beta1_MetricLog__Output } from './api/v1/beta1/MetricLog.ts';
import type { NasConfig as _api_v1_beta1_NasConfig, NasConfig__Output as _api_v1_beta1_NasConfig__Output } from './api/v1/beta1/NasConfig.ts';
import type { ObjectiveSpec as _api_v1_beta1_ObjectiveSpec, ObjectiveSpec__Output as _api_v1_beta1_ObjectiveSpec__Output } from './api/v1/beta1/ObjectiveSpec.ts';
import type { Observation as _api_v1_beta1_Observation, Observation__Output as _api_v1_beta1_Observation__Output } from './api/v1/beta1/Observation.ts';
import type { ObservationLog as _api_v1_beta1_ObservationLog, ObservationLog__Output as _api_v1_beta1_ObservationLog__Output } from './api/v1/beta1/ObservationLog.ts';
import type { Operation as _api_v1_beta1_Operation, Operation__Output as _api_v1_beta1_Operation__Output } from './api/v1/beta1/Operation.ts';
import type { ParameterAssignment as _api_v1_beta1_ParameterAssignment, ParameterAssignment__Output as _api_v1_beta1_ParameterAssignment__Output } from './api/v1/beta1/ParameterAssignment.ts';
import type { ParameterSpec as _api_v1_beta1_ParameterSpec, ParameterSpec__Output as _api_v1_beta1_ParameterSpec__Output } from './api/v1/beta1/ParameterSpec.ts';
import type { ReportObservationLogReply as _api_v1_beta1_ReportObservationLogReply, ReportObservationLogReply__Output as _api_v1_beta1_ReportObservationLogReply__Output } from './api/v1/beta1/ReportObservationLogReply.ts';
import type { ReportObservationLogRequest as _api_v1_beta1_ReportObservationLogRequest, ReportObservationLogRequest__Output as _api_v1_beta1_ReportObservationLogRequest__Output } from './api/v1/beta1/ReportObservationLogRequest.ts';
import type { SetTrialStatusReply as _api_v1_beta1_SetTrialStatusReply, SetTrialStatusReply__Output as _api_v1_beta1_SetTrialStatusReply__Output } from './api/v1/beta1/SetTrialStatusReply.ts';
import type { SetTrialStatusRequest as _api_v1_beta1_SetTrialStatusRequest, SetTrialStatusRequest__Output as _api_v1_beta1_SetTrialStatusRequest__Output } from './api/v1/beta1/SetTrialStatusRequest.ts';
import type { SuggestionClient as _api_v1_beta1_SuggestionClient, SuggestionDefinition as _api_v1_beta1_SuggestionDefinition } from './api/v1/beta1/Suggestion.ts';
import type { Trial as _api_v1_beta1_Trial, Trial__Output as _api_v1_beta1_Trial__Output } from './api/v1/beta1/Trial.ts';
import type { TrialSpec as _api_v1_beta1_TrialSpec, TrialSpec__Output as _api_v1_beta1_TrialSpec__Output } from './api/v1/beta1/TrialSpec.ts';
import type { TrialStatus as _api_v1_beta1_TrialStatus, TrialStatus__Output as _api_v1_beta1_TrialStatus__Output } from './api/v1/beta1/TrialStatus.ts';
import type { ValidateAlgorithmSettingsReply as _api_v1_beta1_ValidateAlgorithmSettingsReply, ValidateAlgorithmSettingsReply__Output as _api_v1_beta1_ValidateAlgorithmSettingsReply__Output } from './api/v1/beta1/ValidateAlgorithmSettingsReply.ts';
import type { ValidateAlgorithmSettingsRequest as _api_v1_beta1_ValidateAlgorithmSettingsRequest, ValidateAlgorithmSettingsRequest__Output as _api_v1_beta1_ValidateAlgorithmSettingsRequest__Output } from './api/v1/beta1/ValidateAlgorithmSettingsRequest.ts';
import type { ValidateEarlyStoppingSettingsReply as _api_v1_beta1_ValidateEarlyStoppingSettingsReply, ValidateEarlyStoppingSettingsReply__Output as _api_v1_beta1_ValidateEarlyStoppingSettingsReply__Output } from './api/v1/beta1/ValidateEarlyStoppingSettingsReply.ts';
import type { ValidateEarlyStoppingSettingsRequest as _api_v1_beta1_ValidateEarlyStoppingSettingsRequest, ValidateEarlyStoppingSettingsRequest__Output as _api_v1_beta1_ValidateEarlyStoppingSettingsRequest__Output } from './api/v1/beta1/ValidateEarlyStoppingSettingsRequest.ts';

type SubtypeConstructor<Constructor extends new (...args: any) => any, Subtype> = {
  new(...args: ConstructorParameters<Constructor>): Subtype;
};

export interface ProtoGrpcType {
  api: {
    v1: {
      beta1: {
        AlgorithmSetting: MessageTypeDefinition<_api_v1_beta1_AlgorithmSetting, _api_v1_beta1_AlgorithmSetting__Output>
        AlgorithmSpec: MessageTypeDefinition<_api_v1_beta1_AlgorithmSpec, _api_v1_beta1_AlgorithmSpec__Output>
        ComparisonType: EnumTypeDefinition
        DBManager: SubtypeConstructor<typeof grpc.Client, _api_v1_beta1_DBManagerClient> & { service: _api_v1_beta1_DBManagerDefinition }
        DeleteObservationLogReply: MessageTypeDefinition<_api_v1_beta1_DeleteObservationLogReply, _api_v1_beta1_DeleteObservationLogReply__Output>
        DeleteObservationLogRequest: MessageTypeDefinition<_api_v1_beta1_DeleteObservationLogRequest, _api_v1_beta1_DeleteObservationLogRequest__Output>
        Distribution: EnumTypeDefinition
        EarlyStopping: SubtypeConstructor<typeof grpc.Client, _api_v1_beta1_EarlyStoppingClient> & { service: _api_v1_beta1_EarlyStoppingDefinition }
        EarlyStoppingRule: MessageTypeDefinition<_api_v1_beta1_EarlyStoppingRule, _api_v1_beta1_EarlyStoppingRule__Output>
        EarlyStoppingSetting: MessageTypeDefinition<_api_v1_beta1_EarlyStoppingSetting, _api_v1_beta1_EarlyStoppingSetting__Output>
        EarlyStoppingSpec: MessageTypeDefinition<_api_v1_beta1_EarlyStoppingSpec, _api_v1_beta1_EarlyStoppingSpec__Output>
        Experiment: MessageTypeDefinition<_api_v1_beta1_Experiment, _api_v1_beta1_Experiment__Output>
        ExperimentSpec: MessageTypeDefinition<_api_v1_beta1_ExperimentSpec, _api_v1_beta1_ExperimentSpec__Output>
        FeasibleSpace: MessageTypeDefinition<_api_v1_beta1_FeasibleSpace, _api_v1_beta1_FeasibleSpace__Output>
        GetEarlyStoppingRulesReply: MessageTypeDefinition<_api_v1_beta1_GetEarlyStoppingRulesReply, _api_v1_beta1_GetEarlyStoppingRulesReply__Output>
        GetEarlyStoppingRulesRequest: MessageTypeDefinition<_api_v1_beta1_GetEarlyStoppingRulesRequest, _api_v1_beta1_GetEarlyStoppingRulesRequest__Output>
        GetObservationLogReply: MessageTypeDefinition<_api_v1_beta1_GetObservationLogReply, _api_v1_beta1_GetObservationLogReply__Output>
        GetObservationLogRequest: MessageTypeDefinition<_api_v1_beta1_GetObservationLogRequest, _api_v1_beta1_GetObservationLogRequest__Output>
        GetSuggestionsReply: MessageTypeDefinition<_api_v1_beta1_GetSuggestionsReply, _api_v1_beta1_GetSuggestionsReply__Output>
        GetSuggestionsRequest: MessageTypeDefinition<_api_v1_beta1_GetSuggestionsRequest, _api_v1_beta1_GetSuggestionsRequest__Output>
        GraphConfig: MessageTypeDefinition<_api_v1_beta1_GraphConfig, _api_v1_beta1_GraphConfig__Output>
        Metric: MessageTypeDefinition<_api_v1_beta1_Metric, _api_v1_beta1_Metric__Output>
        MetricLog: MessageTypeDefinition<_api_v1_beta1_MetricLog, _api_v1_beta1_MetricLog__Output>
        NasConfig: MessageTypeDefinition<_api_v1_beta1_NasConfig, _api_v1_beta1_NasConfig__Output>
        ObjectiveSpec: MessageTypeDefinition<_api_v1_beta1_ObjectiveSpec, _api_v1_beta1_ObjectiveSpec__Output>
        ObjectiveType: EnumTypeDefinition
        Observation: MessageTypeDefinition<_api_v1_beta1_Observation, _api_v1_beta1_Observation__Output>
        ObservationLog: MessageTypeDefinition<_api_v1_beta1_ObservationLog, _api_v1_beta1_ObservationLog__Output>
        Operation: MessageTypeDefinition<_api_v1_beta1_Operation, _api_v1_beta1_Operation__Output>
        ParameterAssignment: MessageTypeDefinition<_api_v1_beta1_ParameterAssignment, _api_v1_beta1_ParameterAssignment__Output>
        ParameterSpec: MessageTypeDefinition<_api_v1_beta1_ParameterSpec, _api_v1_beta1_ParameterSpec__Output>
        ParameterType: EnumTypeDefinition
        ReportObservationLogReply: MessageTypeDefinition<_api_v1_beta1_ReportObservationLogReply, _api_v1_beta1_ReportObservationLogReply__Output>
        ReportObservationLogRequest: MessageTypeDefinition<_api_v1_beta1_ReportObservationLogRequest, _api_v1_beta1_ReportObservationLogRequest__Output>
        SetTrialStatusReply: MessageTypeDefinition<_api_v1_beta1_SetTrialStatusReply, _api_v1_beta1_SetTrialStatusReply__Output>
        SetTrialStatusRequest: MessageTypeDefinition<_api_v1_beta1_SetTrialStatusRequest, _api_v1_beta1_SetTrialStatusRequest__Output>
        Suggestion: SubtypeConstructor<typeof grpc.Client, _api_v1_beta1_SuggestionClient> & { service: _api_v1_beta1_SuggestionDefinition }
        Trial: MessageTypeDefinition<_api_v1_beta1_Trial, _api_v1_beta1_Trial__Output>
        TrialSpec: MessageTypeDefinition<_api_v1_beta1_TrialSpec, _api_v1_beta1_TrialSpec__Output>
        TrialStatus: MessageTypeDefinition<_api_v1_beta1_TrialStatus, _api_v1_beta1_TrialStatus__Output>
        ValidateAlgorithmSettingsReply: MessageTypeDefinition<_api_v1_beta1_ValidateAlgorithmSettingsReply, _api_v1_beta1_ValidateAlgorithmSettingsReply__Output>
        ValidateAlgorithmSettingsRequest: MessageTypeDefinition<_api_v1_beta1_ValidateAlgorithmSettingsRequest, _api_v1_beta1_ValidateAlgorithmSettingsRequest__Output>
        ValidateEarlyStoppingSettingsReply: MessageTypeDefinition<_api_v1_beta1_ValidateEarlyStoppingSettingsReply, _api_v1_beta1_ValidateEarlyStoppingSettingsReply__Output>
        ValidateEarlyStoppingSettingsRequest: MessageTypeDefinition<_api_v1_beta1_ValidateEarlyStoppingSettingsRequest, _api_v1_beta1_ValidateEarlyStoppingSettingsRequest__Output>
      }
    }
  }
}

