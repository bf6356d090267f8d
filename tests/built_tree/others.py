"""The files of the built repository that are not TPU embedding documents, as the tools that own
them write them: npm and TypeScript (JSONC, with comments), a dev container and VS Code settings
(JSONC), GitHub Actions, Compose, Kubernetes (several documents in one file), a Helm chart (Go
templates are not YAML), TF Metadata, TF Serving and Object Detection textprotos."""

from __future__ import annotations

PACKAGE_JSON = """\
{
  "name": "ranker-dashboard",
  "version": "0.4.2",
  "private": true,
  "description": "Live view of the ranker's serving metrics and nearest items by embedding",
  "type": "module",
  "scripts": {
    "dev": "vite",
    "build": "tsc -b && vite build",
    "lint": "eslint src --ext ts,tsx --report-unused-disable-directives --max-warnings 0",
    "preview": "vite preview",
    "test": "vitest run"
  },
  "dependencies": {
    "@tensorflow/tfjs": "^4.22.0",
    "react": "^18.3.1",
    "react-dom": "^18.3.1",
    "recharts": "^2.12.7"
  },
  "devDependencies": {
    "@types/react": "^18.3.3",
    "@types/react-dom": "^18.3.0",
    "@vitejs/plugin-react": "^4.3.1",
    "eslint": "^8.57.0",
    "typescript": "^5.5.3",
    "vite": "^5.3.4",
    "vitest": "^2.0.3"
  },
  "engines": {
    "node": ">=18"
  }
}
"""

TSCONFIG_JSON = """\
{
  "compilerOptions": {
    "target": "ES2020",
    "useDefineForClassFields": true,
    "lib": ["ES2020", "DOM", "DOM.Iterable"],
    "module": "ESNext",
    "skipLibCheck": true,

    /* Bundler mode */
    "moduleResolution": "bundler",
    "allowImportingTsExtensions": true,
    "resolveJsonModule": true,
    "isolatedModules": true,
    "noEmit": true,
    "jsx": "react-jsx",

    /* Linting */
    "strict": true,
    "noUnusedLocals": true,
    "noUnusedParameters": true,
    "noFallthroughCasesInSwitch": true
  },
  "include": ["src"],
  "references": [{ "path": "./tsconfig.node.json" }]
}
"""

TSCONFIG_NODE_JSON = """\
{
  "compilerOptions": {
    "composite": true,
    "skipLibCheck": true,
    "module": "ESNext",
    "moduleResolution": "bundler",
    "allowSyntheticDefaultImports": true,
    "strict": true
  },
  "include": ["vite.config.ts"]
}
"""

# A dev container at the repository root (`.devcontainer.json` is one of the places the spec
# reads): JSONC, with a `features` object that has nothing to do with embeddings.
DEVCONTAINER_JSON = """\
// For format details, see https://aka.ms/devcontainer.json. For config options, see the
// README at: https://github.com/devcontainers/templates/tree/main/src/python
{
	"name": "ranker",
	"image": "mcr.microsoft.com/devcontainers/python:1-3.11-bookworm",

	// Features to add to the dev container. More info: https://containers.dev/features.
	"features": {
		"ghcr.io/devcontainers/features/node:1": {"version": "20"}
	},

	// Use 'forwardPorts' to make a list of ports inside the container available locally.
	"forwardPorts": [5173, 6006, 8501],

	// Use 'postCreateCommand' to run commands after the container is created.
	"postCreateCommand": "pip3 install --user -r requirements.txt && npm ci --prefix dashboard",
}
"""

VSCODE_SETTINGS = """\
{
  // Python: ruff formats on save; tests run with pytest from the repository root.
  "[python]": {
    "editor.defaultFormatter": "charliermarsh.ruff",
    "editor.formatOnSave": true
  },
  "python.testing.pytestEnabled": true,
  "python.testing.pytestArgs": ["trainer/tests"],
  // Syntax highlighting for the textprotos.
  "files.associations": {
    "*.pbtxt": "prototxt",
    "*.config": "prototxt"
  },
  "files.exclude": {
    "**/__pycache__": true,
    "**/.pytest_cache": true
  },
}
"""

CI_YML = """\
name: ci
on:
  push:
    branches: [main]
  pull_request:

jobs:
  trainer:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: "3.11"
          cache: pip
      - run: pip install -r requirements.txt
      - run: pytest -q trainer/tests

  configs:
    runs-on: ubuntu-latest
    permissions:
      contents: read
      security-events: write
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with: {python-version: "3.11"}
      - run: pip install tpuemb
      - run: tpuemb check . --format github --format sarif --output-file tpuemb.sarif
      - uses: github/codeql-action/upload-sarif@v3
        if: always()
        with: {sarif_file: tpuemb.sarif}

  dashboard:
    runs-on: ubuntu-latest
    defaults:
      run:
        working-directory: dashboard
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-node@v4
        with:
          node-version: 20
          cache: npm
          cache-dependency-path: dashboard/package-lock.json
      - run: npm ci
      - run: npm run lint && npm test
"""

DOCKER_COMPOSE = """\
services:
  serving:
    image: tensorflow/serving:2.16.1
    ports:
      - "8500:8500"
      - "8501:8501"
    volumes:
      - ./models/ranker:/models/ranker:ro
      - ./serving:/config:ro
    command:
      - --model_config_file=/config/model.config
      - --monitoring_config_file=/config/monitoring.config
      - --enable_batching=true
      - --batching_parameters_file=/config/batching_parameters.pbtxt

  tensorboard:
    image: tensorflow/tensorflow:2.21.0
    command: tensorboard --logdir /logs --bind_all
    ports:
      - "6006:6006"
    volumes:
      - ./logs:/logs:ro

  dashboard:
    build: ./dashboard
    ports:
      - "5173:5173"
    depends_on:
      - serving
    environment:
      RANKER_URL: http://serving:8501/v1/models/ranker:predict
"""

K8S_DEPLOYMENT = """\
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ranker-serving
  labels:
    app: ranker-serving
spec:
  replicas: 2
  selector:
    matchLabels:
      app: ranker-serving
  template:
    metadata:
      labels:
        app: ranker-serving
    spec:
      containers:
        - name: serving
          image: tensorflow/serving:2.16.1
          args:
            - --port=8500
            - --rest_api_port=8501
            - --model_config_file=/config/model.config
          ports:
            - containerPort: 8500
            - containerPort: 8501
          readinessProbe:
            httpGet:
              path: /v1/models/ranker
              port: 8501
            initialDelaySeconds: 10
          resources:
            requests: {cpu: "2", memory: 4Gi}
            limits: {cpu: "4", memory: 8Gi}
          volumeMounts:
            - name: config
              mountPath: /config
            - name: models
              mountPath: /models
      volumes:
        - name: config
          configMap:
            name: ranker-serving-config
        - name: models
          persistentVolumeClaim:
            claimName: ranker-models
---
apiVersion: v1
kind: Service
metadata:
  name: ranker-serving
spec:
  selector:
    app: ranker-serving
  ports:
    - name: grpc
      port: 8500
      targetPort: 8500
    - name: http
      port: 8501
      targetPort: 8501
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: ranker-serving
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: ranker-serving
  minReplicas: 2
  maxReplicas: 10
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: 70
"""

CHART_YAML = """\
apiVersion: v2
name: ranker-serving
description: TensorFlow Serving for the ranker, with its model config
type: application
version: 0.3.0
appVersion: "2.16.1"
"""

HELM_VALUES = """\
# Default values for ranker-serving.
replicaCount: 2

image:
  repository: tensorflow/serving
  tag: "2.16.1"
  pullPolicy: IfNotPresent

model:
  name: ranker
  basePath: gs://example-ml-models/ranker
  # Versions kept loaded (serving/model.config says the same).
  numVersions: 2

service:
  type: ClusterIP
  grpcPort: 8500
  restPort: 8501

resources:
  limits:
    cpu: "4"
    memory: 8Gi
  requests:
    cpu: "2"
    memory: 4Gi

autoscaling:
  enabled: true
  minReplicas: 2
  maxReplicas: 10
  targetCPUUtilizationPercentage: 70

nodeSelector: {}
tolerations: []
affinity: {}
"""

HELM_DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "ranker-serving.fullname" . }}
  labels:
    {{- include "ranker-serving.labels" . | nindent 4 }}
spec:
  {{- if not .Values.autoscaling.enabled }}
  replicas: {{ .Values.replicaCount }}
  {{- end }}
  selector:
    matchLabels:
      {{- include "ranker-serving.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "ranker-serving.selectorLabels" . | nindent 8 }}
    spec:
      containers:
        - name: {{ .Chart.Name }}
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag }}"
          args:
            - --model_name={{ .Values.model.name }}
            - --model_base_path={{ .Values.model.basePath }}
          resources:
            {{- toYaml .Values.resources | nindent 12 }}
"""

# TF Metadata's Schema as TFDV's write_schema_text writes it: no `# proto-message:` header.
SCHEMA_PBTXT = """\
feature {
  name: "item_ids"
  type: INT
  int_domain {
    min: 0
    max: 15
    is_categorical: true
  }
  presence {
    min_fraction: 1.0
    min_count: 1
  }
  value_count {
    min: 1
    max: 3
  }
}
feature {
  name: "label"
  type: FLOAT
  presence {
    min_fraction: 1.0
    min_count: 1
  }
  shape {
    dim {
      size: 1
    }
  }
  not_in_environment: "SERVING"
}
default_environment: "TRAINING"
default_environment: "SERVING"
"""

# TF Serving's --model_config_file (a ModelServerConfig).
MODEL_CONFIG = """\
model_config_list {
  config {
    name: "ranker"
    base_path: "/models/ranker"
    model_platform: "tensorflow"
    model_version_policy {
      latest {
        num_versions: 2
      }
    }
    version_labels {
      key: "stable"
      value: 1
    }
  }
}
"""

MONITORING_CONFIG = """\
prometheus_config {
  enable: true
  path: "/monitoring/prometheus/metrics"
}
"""

BATCHING_PARAMETERS = """\
max_batch_size { value: 128 }
batch_timeout_micros { value: 2000 }
max_enqueued_batches { value: 100 }
num_batch_threads { value: 8 }
"""

# The Object Detection API's TrainEvalPipelineConfig (an SSD MobileNet V2 on the pets data).
PIPELINE_CONFIG = """\
model {
  ssd {
    num_classes: 37
    box_coder {
      faster_rcnn_box_coder {
        y_scale: 10.0
        x_scale: 10.0
        height_scale: 5.0
        width_scale: 5.0
      }
    }
    matcher {
      argmax_matcher {
        matched_threshold: 0.5
        unmatched_threshold: 0.5
      }
    }
    similarity_calculator {
      iou_similarity {
      }
    }
    image_resizer {
      fixed_shape_resizer {
        height: 300
        width: 300
      }
    }
    feature_extractor {
      type: "ssd_mobilenet_v2"
      depth_multiplier: 1.0
      min_depth: 16
    }
    loss {
      classification_loss {
        weighted_sigmoid {
        }
      }
      localization_loss {
        weighted_smooth_l1 {
        }
      }
      classification_weight: 1.0
      localization_weight: 1.0
    }
  }
}
train_config {
  batch_size: 24
  optimizer {
    rms_prop_optimizer {
      learning_rate {
        exponential_decay_learning_rate {
          initial_learning_rate: 0.004
          decay_steps: 800720
          decay_factor: 0.95
        }
      }
      momentum_optimizer_value: 0.9
      decay: 0.9
      epsilon: 1.0
    }
  }
  fine_tune_checkpoint: "PATH_TO_BE_CONFIGURED/model.ckpt"
  num_steps: 200000
  data_augmentation_options {
    random_horizontal_flip {
    }
  }
}
train_input_reader {
  tf_record_input_reader {
    input_path: "PATH_TO_BE_CONFIGURED/pet_faces_train.record-?????-of-00010"
  }
  label_map_path: "object_detection/label_map.pbtxt"
}
eval_config {
  num_examples: 1101
  max_evals: 10
}
eval_input_reader {
  tf_record_input_reader {
    input_path: "PATH_TO_BE_CONFIGURED/pet_faces_val.record-?????-of-00010"
  }
  label_map_path: "object_detection/label_map.pbtxt"
  shuffle: false
  num_readers: 1
}
"""

LABEL_MAP = """\
item {
  id: 1
  name: 'Abyssinian'
}
item {
  id: 2
  name: 'american_bulldog'
}
item {
  id: 3
  name: 'american_pit_bull_terrier'
}
"""

# The training script's parameters (DVC's params.yaml): `features` and `optimizer` at the top, as
# in a spec, holding other things.
PARAMS_YAML = """\
train:
  epochs: 10
  batch_size: 1024
  steps_per_execution: 100
features:
  - item_ids
  - user_id
  - country
optimizer:
  name: adagrad
  learning_rate: 0.05
  initial_accumulator_value: 0.1
"""

REQUIREMENTS = """\
tensorflow==2.21.0
tensorflow-serving-api==2.16.1
tensorflow-data-validation==1.16.1
pyyaml>=6
"""

README = """\
# ranker

Trains the item ranker on TPU, serves it with TensorFlow Serving, and shows live metrics in a
small dashboard.

- `trainer/`: the training job; its embedding tables are configured in `configs/`.
- `models/ranker/<version>/`: exported SavedModels; `training/` holds checkpoints.
- `serving/`, `k8s/`, `charts/`: how the model is served.
- `dashboard/`: the web dashboard (Vite + React).

`docker compose up` serves the latest model on :8501 with the dashboard on :5173.
"""

TASK_PY = '''\
"""Training entry point: reads configs/ranker/tpu_embedding.pbtxt and trains on the TPU."""

import argparse

from google.protobuf import text_format
from tensorflow.core.tpu.tpu_embedding_configuration_pb2 import TPUEmbeddingConfiguration


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--embedding-config", default="configs/ranker/tpu_embedding.pbtxt")
    args = parser.parse_args()
    with open(args.embedding_config) as stream:
        config = text_format.Parse(stream.read(), TPUEmbeddingConfiguration())
    print(f"{len(config.table_descriptor)} tables, {len(config.feature_descriptor)} features")


if __name__ == "__main__":
    main()
'''

# The repository's own pre-commit configuration, narrowed as tpuemb's README says.
PRE_COMMIT_CONFIG = """\
repos:
  - repo: https://github.com/tpuemb/tpuemb
    rev: v0.1.0
    hooks:
      - id: tpuemb
        files: ^configs/
"""

OTHERS: dict[str, str] = {
    ".devcontainer.json": DEVCONTAINER_JSON,
    ".github/workflows/ci.yml": CI_YML,
    ".pre-commit-config.yaml": PRE_COMMIT_CONFIG,
    ".vscode/settings.json": VSCODE_SETTINGS,
    "README.md": README,
    "charts/ranker-serving/Chart.yaml": CHART_YAML,
    "charts/ranker-serving/templates/deployment.yaml": HELM_DEPLOYMENT,
    "charts/ranker-serving/values.yaml": HELM_VALUES,
    "dashboard/package.json": PACKAGE_JSON,
    "dashboard/tsconfig.json": TSCONFIG_JSON,
    "dashboard/tsconfig.node.json": TSCONFIG_NODE_JSON,
    "data/schema.pbtxt": SCHEMA_PBTXT,
    "docker-compose.yml": DOCKER_COMPOSE,
    "k8s/deployment.yaml": K8S_DEPLOYMENT,
    "object_detection/label_map.pbtxt": LABEL_MAP,
    "params.yaml": PARAMS_YAML,
    "object_detection/pipeline.config": PIPELINE_CONFIG,
    "requirements.txt": REQUIREMENTS,
    "serving/batching_parameters.pbtxt": BATCHING_PARAMETERS,
    "serving/model.config": MODEL_CONFIG,
    "serving/monitoring.config": MONITORING_CONFIG,
    "trainer/task.py": TASK_PY,
}
