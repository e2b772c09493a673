// Pinocchio's side of benches/cost_curves.py: ../shared/bench/pin_bench.cpp
// (same algorithms, states and best-of-5 measure) with calls per
// repetition adapted to the model, as `passivity-lab bench --scaling`
// does, so models of 256 bodies take seconds, not minutes.
// Usage: pin_cost_curves model.bin BUDGET_SECONDS CHRISTOFFEL_MAX_NV
// prints "name us_per_call" lines; christoffel_by_columns only up to
// CHRISTOFFEL_MAX_NV speeds (it costs nv Coriolis matrices).
#include <pinocchio/multibody.hpp>
#include <pinocchio/serialization.hpp>
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/aba.hpp>
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <vector>

using namespace pinocchio;
typedef std::chrono::high_resolution_clock Clock;

static double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

template <typename F> double time_us(F f, double budget) {
  auto t0 = Clock::now();
  int n = 0;
  while (n < 1 || seconds_since(t0) < 2e-3) f(n++);
  double per_call = seconds_since(t0) / n;
  long iters = (long)(budget / per_call);
  if (iters < 3) iters = 3;
  if (iters > 1000000) iters = 1000000;
  for (long i = 0; i < iters / 10 + 1; ++i) f(i);
  double best = 1e30;
  for (int rep = 0; rep < 5; ++rep) {
    auto t1 = Clock::now();
    for (long i = 0; i < iters; ++i) f(i);
    double us = seconds_since(t1) * 1e6 / iters;
    if (us < best) best = us;
  }
  return best;
}

int main(int argc, char** argv) {
  if (argc != 4) { std::cerr << "usage: pin_cost_curves model.bin budget max_nv\n"; return 2; }
  Model model;
  model.loadFromBinary(argv[1]);
  double budget = std::atof(argv[2]);
  int max_nv = std::atoi(argv[3]);
  Data data(model);
  const int K = 64;
  std::vector<Eigen::VectorXd> qs, vs, as, taus;
  for (int i = 0; i < K; ++i) {
    qs.push_back(randomConfiguration(model, -Eigen::VectorXd::Ones(model.nq) * 3, Eigen::VectorXd::Ones(model.nq) * 3));
    vs.push_back(Eigen::VectorXd::Random(model.nv));
    as.push_back(Eigen::VectorXd::Random(model.nv));
    taus.push_back(Eigen::VectorXd::Random(model.nv));
  }
  std::cout << "model " << argv[1] << " nv " << model.nv << std::endl;
  std::cout << "rnea " << time_us([&](int i){ rnea(model, data, qs[i%K], vs[i%K], as[i%K]); }, budget) << std::endl;
  std::cout << "crba " << time_us([&](int i){ crba(model, data, qs[i%K]); }, budget) << std::endl;
  std::cout << "aba " << time_us([&](int i){ aba(model, data, qs[i%K], vs[i%K], taus[i%K]); }, budget) << std::endl;
  std::cout << "coriolis_matrix " << time_us([&](int i){ computeCoriolisMatrix(model, data, qs[i%K], vs[i%K]); }, budget) << std::endl;
  if (model.nv <= max_nv) {
    Eigen::VectorXd e = Eigen::VectorXd::Zero(model.nv);
    std::vector<double> G((size_t)model.nv * model.nv * model.nv);
    std::cout << "christoffel_by_columns " << time_us([&](int i){
        for (int j = 0; j < model.nv; ++j) { e.setZero(); e[j] = 1.0;
          const auto& C = computeCoriolisMatrix(model, data, qs[i%K], e);
          for (int a = 0; a < model.nv; ++a) for (int b = 0; b < model.nv; ++b) G[((size_t)a*model.nv + j)*model.nv + b] = C(a,b); }
      }, budget) << std::endl;
  }
  return 0;
}
