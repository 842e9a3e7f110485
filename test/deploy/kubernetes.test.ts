/**
 * deploy/kubernetes: the base and every overlay rendered by `kubectl kustomize`, each object
 * validated against the Kubernetes schemas (kubernetes-models), and what gw needs of them checked:
 * probes on gw's own endpoints, a grace period that outlasts gw's drain, secrets from Secrets, a
 * PodDisruptionBudget and an autoscaler over the same pods, the image's non-root user.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, PersistentVolumeClaim, Service, ServiceAccount } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';

const ROOT = 'deploy/kubernetes';
const TARGETS = ['base', ...readdirSync(path.join(ROOT, 'overlays')).map((name) => `overlays/${name}`)];

/** Every kind the manifests may hold, by apiVersion/kind; a new kind is added here to be validated. */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
};

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
// CI must render them; elsewhere a machine without kubectl skips with the reason.
const skip = kubectl || process.env.CI ? false : 'kubectl is not installed (it renders the kustomizations: kubectl kustomize)';

function render(target: string): Manifest[] {
  const yaml = execFileSync('kubectl', ['kustomize', path.join(ROOT, target)], { encoding: 'utf8' });
  return parseAllDocuments(yaml).map((document) => document.toJS() as Manifest);
}

function validate(manifest: Manifest): void {
  const Model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
  assert.ok(Model, `no schema known for ${manifest.apiVersion} ${manifest.kind} (${manifest.metadata.name}): add it to MODELS`);
  new Model(manifest as never).validate();
}

function only<T = Manifest>(manifests: Manifest[], kind: string, name = 'gw'): T {
  const found = manifests.filter((manifest) => manifest.kind === kind && manifest.metadata.name === name);
  assert.equal(found.length, 1, `one ${kind} ${name}`);
  return found[0] as T;
}

type Container = {
  name: string;
  args?: string[];
  ports: { name: string; containerPort: number }[];
  envFrom: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  env?: { name: string; value?: string }[];
  readinessProbe: { httpGet: { path: string; port: string } };
  livenessProbe: { httpGet: { path: string; port: string } };
  resources: { requests: Record<string, string>; limits: Record<string, string> };
};
type DeploymentShape = {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: { terminationGracePeriodSeconds: number; securityContext: { runAsUser: number; runAsNonRoot: boolean }; containers: Container[] } };
  };
};

describe('Kubernetes manifests', { skip }, () => {
  const rendered = new Map<string, Manifest[]>();
  before(() => {
    assert.ok(kubectl, 'kubectl is needed to render deploy/kubernetes (kubectl kustomize)');
    for (const target of TARGETS) rendered.set(target, render(target));
  });

  it('every kustomization renders, and each object is valid against the Kubernetes schemas', () => {
    assert.deepEqual(TARGETS, ['base', 'overlays/production', 'overlays/with-datastores']);
    for (const [target, manifests] of rendered) {
      assert.ok(manifests.length >= 6, `${target} renders the gw objects`);
      for (const manifest of manifests) {
        try {
          validate(manifest);
        } catch (error) {
          assert.fail(`${target}: ${manifest.kind} ${manifest.metadata.name}: ${(error as Error).message}`);
        }
      }
    }
  });

  it('the validation catches a broken manifest (a probe without a port)', () => {
    const deployment = structuredClone(only(rendered.get('base')!, 'Deployment')) as Manifest & DeploymentShape;
    delete (deployment.spec.template.spec.containers[0]!.readinessProbe.httpGet as { port?: string }).port;
    assert.throws(() => validate(deployment), /port/);
  });

  for (const target of TARGETS) {
    describe(target, () => {
      const manifests = () => rendered.get(target)!;
      const deployment = () => only<DeploymentShape>(manifests(), 'Deployment');
      const container = () => deployment().spec.template.spec.containers.find((candidate) => candidate.name === 'gw')!;
      const config = () => {
        const name = container().envFrom.find((source) => source.configMapRef)!.configMapRef!.name;
        return manifests().find((manifest) => manifest.kind === 'ConfigMap' && manifest.metadata.name === name) as Manifest & { data: Record<string, string> };
      };

      it('probes /ready for traffic and /health for liveness, on the port gw listens on', () => {
        const gw = container();
        assert.equal(gw.readinessProbe.httpGet.path, '/ready');
        assert.equal(gw.livenessProbe.httpGet.path, '/health');
        const http = gw.ports.find((port) => port.name === gw.readinessProbe.httpGet.port)!;
        assert.equal(String(http.containerPort), config().data.GW_PORT);
        assert.deepEqual(gw.args, ['start']);
      });

      it("gives the pod more time to stop than gw's drain takes (grace, then requests and the log queue)", () => {
        const data = config().data;
        const grace = Number(data.GW_SHUTDOWN_GRACE_MS);
        const timeout = Number(data.GW_SHUTDOWN_TIMEOUT_MS);
        assert.ok(Number.isInteger(grace) && Number.isInteger(timeout));
        // The log queue always gets 5 s after requests in flight (server/main.ts).
        const drainSeconds = (grace + timeout) / 1000 + 5;
        assert.ok(deployment().spec.template.spec.terminationGracePeriodSeconds > drainSeconds, `terminationGracePeriodSeconds above ${drainSeconds}`);
      });

      it('takes the admin key, encryption key and store URLs from the gw-secrets Secret, never inline', () => {
        const gw = container();
        assert.ok(gw.envFrom.some((source) => source.secretRef?.name === 'gw-secrets'));
        const secretNames = /KEY|TOKEN|PASSWORD|SECRET|_URL$/;
        for (const name of Object.keys(config().data)) if (name !== 'GW_PUBLIC_URL') assert.doesNotMatch(name, secretNames, `${name} belongs in gw-secrets`);
        for (const variable of gw.env ?? []) assert.doesNotMatch(variable.name, secretNames, `${variable.name} belongs in gw-secrets`);
      });

      it('runs as the non-root user of the image, with requests and a memory limit', () => {
        const { securityContext } = deployment().spec.template.spec;
        assert.equal(securityContext.runAsNonRoot, true);
        const user = /^USER (\d+):(\d+)$/m.exec(readFileSync('Dockerfile', 'utf8'));
        assert.equal(securityContext.runAsUser, Number(user![1]));
        const { resources } = container();
        assert.ok(resources.requests.cpu && resources.requests.memory && resources.limits.memory);
      });

      it('a PodDisruptionBudget and an autoscaler over the same pods, which the Service selects', () => {
        const podLabels = deployment().spec.template.metadata.labels;
        const selects = (selector: Record<string, string>) => Object.entries(selector).every(([key, value]) => podLabels[key] === value);
        const pdb = only<{ spec: { selector: { matchLabels: Record<string, string> }; maxUnavailable: number } }>(manifests(), 'PodDisruptionBudget');
        assert.ok(selects(pdb.spec.selector.matchLabels));
        assert.equal(pdb.spec.maxUnavailable, 1);
        const service = only<{ spec: { selector: Record<string, string> } }>(manifests(), 'Service');
        assert.ok(selects(service.spec.selector));
        assert.ok(selects(deployment().spec.selector.matchLabels));
        const hpa = only<{ spec: { scaleTargetRef: { kind: string; name: string }; minReplicas: number; maxReplicas: number } }>(manifests(), 'HorizontalPodAutoscaler');
        assert.deepEqual(hpa.spec.scaleTargetRef, { apiVersion: 'apps/v1', kind: 'Deployment', name: 'gw' });
        assert.ok(hpa.spec.minReplicas >= 2, 'replicated');
        assert.ok(hpa.spec.minReplicas <= deployment().spec.replicas && deployment().spec.replicas <= hpa.spec.maxReplicas);
      });
    });
  }
});
