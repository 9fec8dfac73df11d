import math

import numpy as np

erf = np.vectorize(math.erf, otypes=[np.float64])
