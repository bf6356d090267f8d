"""TE826 and the params-size arithmetic, against published figures.

Figures:
- Keras CuDNNLSTM (tf.compat.v1.keras.layers.CuDNNLSTM, tensorflow/python/keras/layers/
  cudnn_recurrent.py): kernel (input_dim, 4*units), recurrent_kernel (units, 4*units), bias
  (8*units) -- TF 2.21's own tensorflow/python/keras/saving/hdf5_format.py notes "CuDNNLSTM has
  (units * 8) weights" for its bias. So 4*units*(input_dim + units) + 8*units.
- Keras CuDNNGRU, same file: kernel (input_dim, 3*units), recurrent_kernel (units, 3*units), bias
  (6*units).
- TensorFlow's cudnn_rnn layers (tensorflow/contrib/cudnn_rnn/python/layers/cudnn_rnn.py,
  _canonical_weight_shape): layer 0 weights (num_units, input_size) per gate, later layers
  (num_units, 2*num_units) per gate when bidirectional; (num_units, num_units) per gate on the
  hidden state; two biases of num_units per gate; every shape once per direction; 1 gate for
  rnn_relu and rnn_tanh (num_params_per_layer 2).
- cuDNN's documentation (cudnnRNNForward, projection): with a projection the recurrent matrices
  are hiddenSize x projSize, and the projection projSize x hiddenSize; CUDNN_SKIP_INPUT has no
  input matrix on the first layer.
"""

import pytest

from tests.helpers import graph, graph_findings, node
from tpuemb_cli.frontends.tensorflow.rules.lib.cudnn import params_size


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        # Keras CuDNNLSTM(64) on 32 features: 4*64*(32+64) + 8*64.
        (("lstm", "linear_input", "unidirectional", 1, 64, 32), 4 * 64 * (32 + 64) + 8 * 64),
        # Keras CuDNNGRU(64) on 32 features: 3*64*(32+64) + 6*64.
        (("gru", "linear_input", "unidirectional", 1, 64, 32), 3 * 64 * (32 + 64) + 6 * 64),
        # rnn_tanh, 1 gate: 10*(8+10) + 2*10 = 200; rnn_relu the same.
        (("rnn_tanh", "linear_input", "unidirectional", 1, 10, 8), 200),
        (("rnn_relu", "linear_input", "unidirectional", 1, 10, 8), 200),
        # Bidirectional LSTM, 2 layers: layer 0 per direction 4*6*(4+6)+48, layer 1 4*6*(12+6)+48.
        (("lstm", "linear_input", "bidirectional", 2, 6, 4), 2 * (240 + 48) + 2 * (432 + 48)),
        # LSTM with a projection of 2: 4*6*4 + 4*6*2 + 48 + 2*6.
        (("lstm", "linear_input", "unidirectional", 1, 6, 4, 2), 96 + 48 + 48 + 12),
        # skip_input: no input matrices on the first layer.
        (("lstm", "skip_input", "unidirectional", 1, 6, 6), 4 * 6 * 6 + 48),
    ],
)
def test_params_size(args: tuple, expected: int) -> None:  # type: ignore[type-arg]
    assert params_size(*args) == expected


def test_params_size_of_any_layer_count_is_worked_out_not_summed() -> None:
    # Layers after the first are alike: 2**62 layers (a count a graph's shape can give) cost no
    # more than 2, and the sum is the same as layer by layer.
    first, later = 4 * 6 * (4 + 6) + 48, 4 * 6 * (6 + 6) + 48
    assert params_size("lstm", "linear_input", "unidirectional", 3, 6, 4) == first + 2 * later
    huge = params_size("lstm", "linear_input", "unidirectional", 2**62, 6, 4)
    assert huge == first + (2**62 - 1) * later


def test_wrong_params_length_in_a_graph() -> None:
    g = graph("cudnn_rnn_v3_lstm")
    node(g, "params").attr["shape"].shape.dim[0].size = 100
    ((path, message),) = graph_findings(g, "TE826")
    assert path == "node[5].input[3]"
    assert message.endswith("needs 288 in cuDNN's canonical layout")


def test_near_miss_right_length() -> None:
    g = graph("cudnn_rnn_v3_lstm")
    node(g, "params").attr["shape"].shape.dim[0].size = 288
    assert graph_findings(g, "TE826") == []
