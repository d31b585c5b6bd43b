// The parts of the Engine API's Swarm objects this runtime reads (Engine API: GET /swarm, /services,
// /services/{id}, /tasks). Everything else in a service spec is carried through untouched on update.

/** GET /swarm, which only a manager answers: the cluster it manages. */
export interface SwarmCluster {
  readonly ID?: string;
}

export interface ContainerSpec {
  Image?: string;
  readonly [key: string]: unknown;
}

export interface ServiceSpec {
  readonly Name?: string;
  readonly Labels?: Readonly<Record<string, string>>;
  readonly TaskTemplate?: { ContainerSpec?: ContainerSpec; readonly [key: string]: unknown };
  readonly Mode?: { readonly Replicated?: { readonly Replicas?: number }; readonly Global?: object; readonly [key: string]: unknown };
  readonly [key: string]: unknown;
}

/** `updating`, `paused`, `completed`, `rollback_started`, `rollback_paused`, `rollback_completed`. */
export interface UpdateStatus {
  readonly State?: string;
  readonly StartedAt?: string;
  readonly CompletedAt?: string;
  readonly Message?: string;
}

export interface SwarmService {
  readonly ID: string;
  readonly Version: { readonly Index: number };
  readonly Spec: ServiceSpec;
  /** The spec before the last update: what Swarm's rollback (`rollback=previous`) goes back to. */
  readonly PreviousSpec?: ServiceSpec;
  readonly UpdateStatus?: UpdateStatus;
}

export interface SwarmTask {
  readonly ID: string;
  readonly DesiredState?: string;
  readonly Status?: { readonly State?: string };
  readonly Spec?: { readonly ContainerSpec?: { readonly Image?: string } };
}

/** The label every task container of a service carries (the docker runtime leaves those alone). */
export const TASK_SERVICE_LABEL = 'com.docker.swarm.service.id';
