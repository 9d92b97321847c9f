/// \file
/// Everything `theano/theano.hpp` offers, plus what Op authors and rewrite
/// writers use (Theano's "Extending Theano"): the op registry
/// (THEANO_REGISTER_OP), the Features of a FunctionGraph
/// (DestroyHandler, History, ReplaceValidate), the rewriters and optdb,
/// view_roots, pprint's printer table (PPrinter), and the graph algorithms'
/// generic forms (clone_get_equiv, stack_search, general_toposort/io_toposort). (FunctionGraph itself is in theano.hpp: `Function::fgraph()`
/// returns one.)
/// Kept out of theano.hpp so that a user program compiles faster.
#pragma once

#include "theano/theano.hpp"
#include "theano/graph/equiv.h"
#include "theano/graph/op_registry.h"
#include "theano/graph/stack_search.h"
#include "theano/graph/toposort.h"
#include "theano/graph/views.h"
#include "theano/pprinter.h"
#include "theano/fgraph/destroy_handler.h"
#include "theano/fgraph/feature.h"
#include "theano/fgraph/history.h"
#include "theano/fgraph/replace_validate.h"
#include "theano/rewrite/optdb.h"
#include "theano/rewrite/rewriter.h"
