"""TF1-style frozen inference graphs of the keyword-spotting families (ARM ML-KWS-for-MCU
models.py: DNN, CNN, DS-CNN; TensorFlow speech_commands models.py: "conv"), built node by node
as freezing leaves them: weights as Const + `<var>/read` Identity, conv/matmul + bias Add or
BiasAdd, slim batch norm as FusedBatchNorm (is_training=false, scale=False -> Const ones),
dropout as an Identity at inference, Reshape of the flat fingerprint, `labels_softmax` output.
Weights are random but deterministic (own RandomState); references are numpy with TF semantics
(ref.py), computed in float64."""
import numpy as np

import ref
from cases import case

R = np.random.RandomState(2024)
LABELS = 12


def he(*shape, fan_in):
    return (R.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


def var(g, name, value):
    """A frozen variable: Const `name` and its Identity `name/read` (what freezing leaves)."""
    g.const(name, value)
    g.op("Identity", name + "/read", [name])
    return name + "/read"


def fingerprint(g, size, lo=-3.0, hi=3.0):
    x = R.uniform(lo, hi, (1, size)).astype(np.float32)
    g.placeholder("fingerprint_input", [1, size])
    return x


def softmax(z):
    e = np.exp(z - z.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def dense(g, scope, x_name, x, n_out, relu, bias_op="Add"):
    w = he(x.shape[1], n_out, fan_in=x.shape[1])
    b = (R.standard_normal(n_out) * 0.1).astype(np.float32)
    wr, br = var(g, scope + "/W", w), var(g, scope + "/b", b)
    g.op("MatMul", scope + "/MatMul", [x_name, wr], transpose_a=False, transpose_b=False)
    if bias_op == "Add":
        g.op("Add", scope + "/add", [scope + "/MatMul", br])
    else:
        g.op("BiasAdd", scope + "/add", [scope + "/MatMul", br], data_format="NHWC")
    y = x.astype(np.float64) @ w + b
    if relu:
        g.op("Relu", scope + "/Relu", [scope + "/add"])
        return scope + "/Relu", np.maximum(y, 0)
    return scope + "/add", y


def reshape(g, name, x_name, shape):
    g.const(name + "/shape", np.array(shape, np.int32))
    g.op("Reshape", name, [x_name, name + "/shape"], Tshape=np.int32)
    return name


def outputs(g, logits_name, logits):
    g.op("Softmax", "labels_softmax", [logits_name])
    return [(logits_name + ":0", logits.astype(np.float32)), ("labels_softmax:0", softmax(logits).astype(np.float32))]


@case("kws_dnn_s")
def kws_dnn(g):
    # DNN small: 3 x 144 fully connected + ReLU on 49x10 MFCC, then 12 logits.
    x = fingerprint(g, 49 * 10)
    h, hv = "fingerprint_input", x
    for i in range(3):
        h, hv = dense(g, f"fc{i + 1}", h, hv, 144, relu=True)
        g.op("Identity", f"dropout_{i + 1}/Identity", [h])  # dropout at inference
        h = f"dropout_{i + 1}/Identity"
    logits_name, logits = dense(g, "final_fc", h, hv, LABELS, relu=False)
    return {"fingerprint_input": x}, outputs(g, logits_name, logits)


def conv_layer(g, scope, x_name, x, kh, kw, cout, stride, padding, bias_op="Add", relu=True):
    cin = x.shape[3]
    w = he(kh, kw, cin, cout, fan_in=kh * kw * cin)
    b = (R.standard_normal(cout) * 0.1).astype(np.float32)
    wr, br = var(g, scope + "/weights", w), var(g, scope + "/bias", b)
    g.op("Conv2D", scope + "/Conv2D", [x_name, wr], strides=[1, stride[0], stride[1], 1], padding=padding,
         data_format="NHWC", use_cudnn_on_gpu=True)
    if bias_op == "Add":
        g.op("Add", scope + "/add", [scope + "/Conv2D", br])
    else:
        g.op("BiasAdd", scope + "/add", [scope + "/Conv2D", br], data_format="NHWC")
    y = ref.conv2d(x, w, stride, padding).astype(np.float64) + b
    if relu:
        g.op("Relu", scope + "/Relu", [scope + "/add"])
        return scope + "/Relu", np.maximum(y, 0).astype(np.float32)
    return scope + "/add", y.astype(np.float32)


@case("kws_cnn_s")
def kws_cnn(g):
    # CNN small ("28 10 4 1 1 30 10 4 2 1 16 128"): conv 10x4 s1x1 28, conv 10x4 s2x1 30 (VALID),
    # linear 16 (no activation), fully connected 128 + ReLU, 12 logits.
    x = fingerprint(g, 49 * 10)
    h = reshape(g, "Reshape", "fingerprint_input", [-1, 49, 10, 1])
    hv = x.reshape(1, 49, 10, 1)
    h, hv = conv_layer(g, "conv1", h, hv, 10, 4, 28, (1, 1), "VALID")
    g.op("Identity", "dropout/Identity", [h])
    h, hv = conv_layer(g, "conv2", "dropout/Identity", hv, 10, 4, 30, (2, 1), "VALID")
    g.op("Identity", "dropout_1/Identity", [h])
    n = int(np.prod(hv.shape[1:]))  # 16 * 4 * 30
    h = reshape(g, "Reshape_1", "dropout_1/Identity", [-1, n])
    hv = hv.reshape(1, n)
    h, hv = dense(g, "linear", h, hv, 16, relu=False)
    h, hv = dense(g, "fc1", h, hv, 128, relu=True)
    g.op("Identity", "dropout_2/Identity", [h])
    logits_name, logits = dense(g, "final_fc", "dropout_2/Identity", hv, LABELS, relu=False)
    return {"fingerprint_input": x}, outputs(g, logits_name, logits)


def batch_norm(g, scope, x_name, x, eps=0.001):
    """slim.batch_norm(scale=False, is_training=False, activation_fn=tf.nn.relu) frozen."""
    c = x.shape[3]
    beta = (R.standard_normal(c) * 0.1).astype(np.float32)
    mean = (R.standard_normal(c) * 0.2).astype(np.float32)
    variance = R.uniform(0.5, 1.5, c).astype(np.float32)
    g.const(scope + "/Const", np.ones(c, np.float32))  # gamma of scale=False
    br = var(g, scope + "/beta", beta)
    mr = var(g, scope + "/moving_mean", mean)
    vr = var(g, scope + "/moving_variance", variance)
    g.op("FusedBatchNorm", scope + "/FusedBatchNorm", [x_name, scope + "/Const", br, mr, vr], epsilon=eps,
         data_format="NHWC", is_training=False)
    g.op("Relu", scope + "/Relu", [scope + "/FusedBatchNorm"])
    y = (x.astype(np.float64) - mean) / np.sqrt(variance.astype(np.float64) + eps) + beta
    return scope + "/Relu", np.maximum(y, 0).astype(np.float32)


@case("kws_ds_cnn_s")
def kws_ds_cnn(g):
    # DS-CNN small ("5 64 10 4 2 2 64 3 3 1 1 ..."): conv 10x4 s2x2 64 SAME + BN + ReLU, 4 x
    # (depthwise 3x3 + BN + ReLU + pointwise 1x1 + BN + ReLU), average pool over the whole
    # 25x5 map, squeeze, fully connected (BiasAdd) to 12 logits.
    x = fingerprint(g, 49 * 10)
    h = reshape(g, "Reshape", "fingerprint_input", [-1, 49, 10, 1])
    hv = x.reshape(1, 49, 10, 1)
    h, hv = conv_layer(g, "DS-CNN/conv_1", h, hv, 10, 4, 64, (2, 2), "SAME", bias_op="BiasAdd", relu=False)
    h, hv = batch_norm(g, "DS-CNN/conv_1/batch_norm", h, hv)
    for i in range(1, 5):
        sc = f"DS-CNN/conv_ds_{i}"
        c = hv.shape[3]
        w = he(3, 3, c, 1, fan_in=9)
        b = (R.standard_normal(c) * 0.1).astype(np.float32)
        wr = var(g, sc + "/depthwise_conv/depthwise_weights", w)
        br = var(g, sc + "/depthwise_conv/biases", b)
        g.op("DepthwiseConv2dNative", sc + "/depthwise_conv/depthwise", [h, wr], strides=[1, 1, 1, 1],
             padding="SAME", data_format="NHWC", dilations=[1, 1, 1, 1])
        g.op("BiasAdd", sc + "/depthwise_conv/BiasAdd", [sc + "/depthwise_conv/depthwise", br], data_format="NHWC")
        hv = (ref.depthwise(hv, w, (1, 1), "SAME").astype(np.float64) + b).astype(np.float32)
        h, hv = batch_norm(g, sc + "/dw_batch_norm", sc + "/depthwise_conv/BiasAdd", hv)
        h, hv = conv_layer(g, sc + "/pointwise_conv", h, hv, 1, 1, 64, (1, 1), "SAME", bias_op="BiasAdd",
                           relu=False)
        h, hv = batch_norm(g, sc + "/pw_batch_norm", h, hv)
    t, f = hv.shape[1], hv.shape[2]
    g.op("AvgPool", "DS-CNN/avg_pool/AvgPool", [h], ksize=[1, t, f, 1], strides=[1, 2, 2, 1], padding="VALID",
         data_format="NHWC")
    hv = ref.pool(hv, (t, f), (2, 2), "VALID", "avg")
    g.op("Squeeze", "DS-CNN/SpatialSqueeze", ["DS-CNN/avg_pool/AvgPool"], squeeze_dims=[1, 2])
    hv = hv.reshape(1, -1)
    logits_name, logits = dense(g, "DS-CNN/fc1", "DS-CNN/SpatialSqueeze", hv, LABELS, relu=False, bias_op="BiasAdd")
    return {"fingerprint_input": x}, outputs(g, logits_name, logits)


@case("speech_commands_conv")
def speech_commands_conv(g):
    # tensorflow/examples/speech_commands "conv": 98x40 fingerprint, conv 20x8 64 SAME + ReLU +
    # dropout, max pool 2x2 s2 SAME, conv 10x4 64 SAME + ReLU + dropout, fully connected to 12.
    x = fingerprint(g, 98 * 40)
    h = reshape(g, "Reshape", "fingerprint_input", [-1, 98, 40, 1])
    hv = x.reshape(1, 98, 40, 1)
    h, hv = conv_layer(g, "first", h, hv, 20, 8, 64, (1, 1), "SAME")
    g.op("Identity", "first_dropout/Identity", [h])
    g.op("MaxPool", "MaxPool", ["first_dropout/Identity"], ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME",
         data_format="NHWC")
    hv = ref.pool(hv, (2, 2), (2, 2), "SAME", "max")
    h, hv = conv_layer(g, "second", "MaxPool", hv, 10, 4, 64, (1, 1), "SAME")
    g.op("Identity", "second_dropout/Identity", [h])
    n = int(np.prod(hv.shape[1:]))  # 49 * 20 * 64
    h = reshape(g, "Reshape_1", "second_dropout/Identity", [-1, n])
    logits_name, logits = dense(g, "final_fc", h, hv.reshape(1, n), LABELS, relu=False)
    return {"fingerprint_input": x}, outputs(g, logits_name, logits)
