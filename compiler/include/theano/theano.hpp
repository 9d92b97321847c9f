/// \file
/// The public umbrella header of theano-cpp: everything a user needs to build
/// graphs (`namespace theano`, tensors in `theano::tensor`).
#pragma once

#include "theano/config.h"
#include "theano/graph/as_string.h"
#include "theano/graph/basic.h"
#include "theano/graph/clone.h"
#include "theano/graph/equality.h"
#include "theano/graph/op.h"
#include "theano/graph/toposort.h"
#include "theano/graph/traversal.h"
#include "theano/graph/type.h"
#include "theano/graph/views.h"
#include "theano/runtime/dtype.h"
#include "theano/runtime/error.h"
#include "theano/runtime/ndarray.h"
#include "theano/runtime/npy.h"
#include "theano/tensor/type.h"
