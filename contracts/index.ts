// The contracts entry (`tidewatch/contracts`, docs/plugins.md#contracts): the service keys and types a plugin
// offers other plugins live in that plugin's folder, not in the core; this entry re-exports them, so a
// built-in or third-party plugin that uses another's service imports the contract from here and never
// the providing plugin itself. Only contracts (keys, types and the small pure rules that come with them, such
// as the state's lastCheckOf): no plugin's implementation is reachable through this file. contracts/shared/
// beside it holds helpers several built-in plugins apply alike; they import those by path.
export { GITHUB_API, type GitHubApi } from '../plugins/git/contracts.js';
export { notificationServiceKey, type NotificationMessage, type NotificationSender, type NotificationService } from '../plugins/notify/service.js';
export {
  ATTESTATION_VERIFIER,
  SIGNATURE_VERDICTS,
  type AttestationRead,
  type AttestationVerifier,
  type SignatureVerdicts,
  type VerifiedAttestation,
} from '../plugins/signatures/contracts.js';
export {
  DOCKER_ENGINES,
  LOCAL_IMAGES,
  REGISTRY_MIRRORS,
  type DockerEngines,
  type EngineApi,
  type EngineRequestOptions,
  type LocalImage,
  type LocalImages,
  type RegistryMirrors,
} from '../plugins/docker/contracts.js';
export {
  PULL_CREDENTIALS,
  REGISTRY_CLIENT,
  REMOTE_IMAGES,
  registryAuthHeader,
  type PullCredentials,
  type RegistryAuth,
  type RegistryClientService,
  type RegistryDocument,
  type RegistryReadOptions,
  type RemoteImages,
} from '../plugins/registry/contracts.js';
export {
  UPDATE_POLICIES,
  type ApprovalDecider,
  type ApprovalDecision,
  type ApprovalState,
  type DecisionOptions,
  type DecisionOutcome,
  type PolicyStatus,
  type UpdatePolicies,
} from '../plugins/policies/contracts.js';
export {
  AGENT_HOSTS,
  type AgentEngineFacts,
  type AgentHost,
  type AgentHostChange,
  type AgentHosts,
} from '../plugins/agents/contracts.js';
export { PEOPLE, type Authentication, type People } from '../plugins/people/contracts.js';
export {
  SNAPSHOTS,
  SNAPSHOT_VOLUMES,
  type SnapshotJournal,
  type SnapshotQuery,
  type SnapshotRecord,
  type SnapshotSettings,
  type SnapshotVolume,
  type SnapshotWriter,
  type Snapshots,
} from '../plugins/state/snapshot-contracts.js';
export { PAGE_DEFAULT, PAGE_MAX, parsePageQuery, readAllRecords, type PageQueryError } from '../plugins/state/paging-contracts.js';
export {
  DATA_DIR_HANDOVER,
  ROLLBACKS,
  STATE_STORE,
  containerKey,
  lastCheckOf,
  targetKey,
  type AuditAction,
  type AuditEntry,
  type AuditImage,
  type AuditQuery,
  type AuditRecord,
  type ContainerKey,
  type DataDirHandover,
  type FailedCandidate,
  type HistoryQuery,
  type Hold,
  type KeyedRecord,
  type LastCheck,
  type LastCheckTags,
  type Page,
  type PageQuery,
  type PreviousImage,
  type RecordFields,
  type RetainedImage,
  type RollbackOutcome,
  type Rollbacks,
  type StateStore,
} from '../plugins/state/contracts.js';
