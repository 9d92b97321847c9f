// bench/conv_backends.cpp's candidate (c): oneDNN's convolution primitives.
#pragma once

#include <dlfcn.h>
#include <oneapi/dnnl/dnnl.hpp>

#include "conv_backends_common.h"

namespace conv_bench {

// ---------------------------------------------------------------- (c) oneDNN
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

// oneDNN on OpenMP (libgomp, loaded with libdnnl): the thread count is omp's.
void set_omp_threads(int t) {
  using Fn = void (*)(int);
  static Fn fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (!fn) throw std::runtime_error("omp_set_num_threads not found (libdnnl is expected to load libgomp)");
  fn(t);
}

struct DnnlPass {
  std::function<void()> with_reorders, prim_only;
  int reorders = 0;
  double create_ms = 0;
  std::string impl;
};

// The three passes of one shape on user buffers in NCHW / OIHW; `blocked`
// lets oneDNN choose layouts (format any) and adds the reorders it needs.
struct DnnlConv {
  dnnl::engine eng{dnnl::engine::kind::cpu, 0};
  dnnl::stream strm{eng};
  DnnlPass pass[3];

  DnnlConv(const Shape& z, bool blocked, Tensors<float>& d) {
    const dnnl::memory::dims xd{z.N, z.C, z.H, z.W}, wd{z.K, z.C, z.R, z.S}, yd{z.N, z.K, z.P(), z.Q()},
        st{1, 1}, pd{z.pad, z.pad};
    const dnnl::memory::desc ux(xd, dt::f32, tag::nchw), uw(wd, dt::f32, tag::oihw), uy(yd, dt::f32, tag::nchw);
    const dnnl::memory::desc ax(xd, dt::f32, blocked ? tag::any : tag::nchw),
        aw(wd, dt::f32, blocked ? tag::any : tag::oihw), ay(yd, dt::f32, blocked ? tag::any : tag::nchw);
    dnnl::memory mx(ux, eng, d.x.data()), mw(uw, eng, d.w.data()), my(uy, eng, d.y.data()), mdy(uy, eng, d.dy.data()),
        mdw(uw, eng, d.dw.data()), mdx(ux, eng, d.dx.data());

    auto t0 = Clock::now();
    auto ms_since = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); };
    // Inputs reordered to the primitive's layout before it, outputs back after.
    struct Plan {
      std::vector<std::pair<dnnl::reorder, std::pair<dnnl::memory, dnnl::memory>>> pre, post;
      std::unordered_map<int, dnnl::memory> args;
    };
    auto bind = [&](Plan& pl, int arg, const dnnl::memory& user, const dnnl::memory::desc& want, bool is_input) {
      if (user.get_desc() == want) {
        pl.args[arg] = user;
        return;
      }
      dnnl::memory inner(want, eng);
      pl.args[arg] = inner;
      if (is_input) pl.pre.push_back({dnnl::reorder(user, inner), {user, inner}});
      else pl.post.push_back({dnnl::reorder(inner, user), {inner, user}});
    };
    auto finish = [&](DnnlPass& p, dnnl::primitive prim, std::shared_ptr<Plan> pl, const char* impl) {
      p.reorders = int(pl->pre.size() + pl->post.size());
      p.impl = impl;
      p.create_ms = ms_since();
      dnnl::stream s = strm;
      p.prim_only = [prim, pl, s]() mutable {
        prim.execute(s, pl->args);
        s.wait();
      };
      p.with_reorders = [prim, pl, s]() mutable {
        for (auto& [r, io] : pl->pre) r.execute(s, io.first, io.second);
        prim.execute(s, pl->args);
        for (auto& [r, io] : pl->post) r.execute(s, io.first, io.second);
        s.wait();
      };
    };

    t0 = Clock::now();
    auto fwd_pd = dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, ax, aw,
                                        ay, st, pd, pd),
        eng);
    {
      auto pl = std::make_shared<Plan>();
      bind(*pl, DNNL_ARG_SRC, mx, fwd_pd.src_desc(), true);
      bind(*pl, DNNL_ARG_WEIGHTS, mw, fwd_pd.weights_desc(), true);
      bind(*pl, DNNL_ARG_DST, my, fwd_pd.dst_desc(), false);
      finish(pass[0], dnnl::convolution_forward(fwd_pd), pl, fwd_pd.impl_info_str());
    }
    t0 = Clock::now();  // the forward descriptor is the hint of both backward ones (not counted again)
    {
      auto bw_pd = dnnl::convolution_backward_weights::primitive_desc(
          dnnl::convolution_backward_weights::desc(dnnl::algorithm::convolution_direct, ax, aw, ay, st, pd, pd), eng,
          fwd_pd);
      auto pl = std::make_shared<Plan>();
      bind(*pl, DNNL_ARG_SRC, mx, bw_pd.src_desc(), true);
      bind(*pl, DNNL_ARG_DIFF_DST, mdy, bw_pd.diff_dst_desc(), true);
      bind(*pl, DNNL_ARG_DIFF_WEIGHTS, mdw, bw_pd.diff_weights_desc(), false);
      finish(pass[1], dnnl::convolution_backward_weights(bw_pd), pl, bw_pd.impl_info_str());
    }
    t0 = Clock::now();
    {
      auto bd_pd = dnnl::convolution_backward_data::primitive_desc(
          dnnl::convolution_backward_data::desc(dnnl::algorithm::convolution_direct, ax, aw, ay, st, pd, pd), eng,
          fwd_pd);
      auto pl = std::make_shared<Plan>();
      bind(*pl, DNNL_ARG_DIFF_DST, mdy, bd_pd.diff_dst_desc(), true);
      bind(*pl, DNNL_ARG_WEIGHTS, mw, bd_pd.weights_desc(), true);
      bind(*pl, DNNL_ARG_DIFF_SRC, mdx, bd_pd.diff_src_desc(), false);
      finish(pass[2], dnnl::convolution_backward_data(bd_pd), pl, bd_pd.impl_info_str());
    }
  }
};

}  // namespace conv_bench
