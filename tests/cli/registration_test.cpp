#include <gtest/gtest.h>

#include <string>

#include "cli/state_plan.hpp"
#include "kerntime/benchmark.hpp"

namespace kerntime {
namespace {

template <typename T> std::string invalid_argument_message(T&& action) {
  try {
    action();
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(registration, power_of_two_axis_values) {
  benchmark b("b", [](state&) {});
  b.add_int_power_of_two_axis("N", 10, 16, 3);
  ASSERT_EQ(b.axes().size(), 1u);
  EXPECT_TRUE(b.axes()[0].power_of_two());
  EXPECT_EQ(b.axes()[0].ints(), (std::vector<std::int64_t>{1024, 8192, 65536}));
}

TEST(registration, rejects_bad_names_and_duplicates) {
  benchmark b("b", [](state&) {});
  b.add_int_axis("N", {1});
  EXPECT_NE(invalid_argument_message([&] {
              b.add_float_axis("N", {1.0});
            }).find("already has an axis named 'N'"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { b.add_string_axis("a=b", {"x"}); }).find("axis name"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] {
              b.add_int_axis("empty", {});
            }).find("needs at least one value"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] {
              b.add_int_power_of_two_axis("P", 5, 4);
            }).find("power-of-two axis 'P'"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([] { benchmark("a/b", [](state&) {}); }).find("'a/b'"),
            std::string::npos);

  benchmark_registry registry;
  registry.add("x", [](state&) {});
  EXPECT_NE(invalid_argument_message([&] {
              registry.add("x", [](state&) {});
            }).find("already registered"),
            std::string::npos);
}

TEST(registration, the_plan_names_each_state_once_from_its_axis_values) {
  benchmark_registry registry;
  registry.add("b", [](state&) {})
      .add_int_axis("N", {4096})
      .add_float_axis("alpha", {0.5})
      .add_string_axis("mode", {"fast"});
  const auto plan = detail::plan_states(registry, {}, std::nullopt);
  ASSERT_EQ(plan.states.size(), 1U);
  EXPECT_EQ(plan.states[0].name, "b/N=4096/alpha=0.5/mode=fast");
  EXPECT_EQ(plan.states[0].values[1].second, axis_value(0.5));
}

TEST(registration, state_reads_axes_and_accumulates_work) {
  state s("b/N=4096/alpha=0.5/mode=fast", "b",
          {{"N", std::int64_t{4096}}, {"alpha", 0.5}, {"mode", std::string("fast")}}, {});
  EXPECT_EQ(s.get_int("N"), 4096);
  EXPECT_DOUBLE_EQ(s.get_float("alpha"), 0.5);
  EXPECT_EQ(s.get_string("mode"), "fast");
  EXPECT_EQ(s.name(), "b/N=4096/alpha=0.5/mode=fast");
  EXPECT_NE(invalid_argument_message([&] {
              (void)s.get_float("N");
            }).find("axis 'N' is not a float axis"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] {
              (void)s.get_int("alpha");
            }).find("axis 'alpha' is not an int axis"),
            std::string::npos);
  EXPECT_NE(invalid_argument_message([&] { (void)s.get_int("M"); }).find("no axis named 'M'"),
            std::string::npos);
  EXPECT_FALSE(s.flops());
  s.add_flops(10);
  s.add_flops(5);
  s.add_bytes(3);
  EXPECT_EQ(s.flops(), 15.0);
  EXPECT_EQ(s.bytes(), 3.0);
  EXPECT_NE(invalid_argument_message([&] { s.add_bytes(-1); }).find("add_bytes"),
            std::string::npos);
}

TEST(registration, an_axis_read_as_another_kind_names_both_kinds_with_their_article) {
  const axis mode{"mode", string_axis_values{{"fast"}}};
  EXPECT_EQ(invalid_argument_message([&] { (void)mode.ints(); }),
            "axis 'mode' is a string axis, not an int axis");
  const axis n{"N", int_axis_values{{1}}};
  EXPECT_EQ(invalid_argument_message([&] { (void)n.strings(); }),
            "axis 'N' is an int axis, not a string or type axis");
}

TEST(registration, protocol_reaches_the_state) {
  protocol p;
  p.input_sets = 7;
  state s("b", "b", {}, p);
  EXPECT_EQ(s.input_sets(), 7);
  EXPECT_TRUE(s.get_protocol().flush_l2);
  s.set_flush_l2(false);
  EXPECT_FALSE(s.get_protocol().flush_l2);
}

TEST(registration, skipped_state_does_not_measure) {
  state s("b", "b", {}, {});
  s.skip("too large for this device");
  bool ran = false;
  s.exec([&](cudaStream_t, int) { ran = true; });
  EXPECT_FALSE(ran);
  EXPECT_TRUE(s.is_skipped());
  EXPECT_EQ(s.skip_reason(), "too large for this device");
  EXPECT_FALSE(s.result());
}

TEST(registration, type_names_come_from_the_compiler) {
  EXPECT_EQ(type_name<float>(), "float");
  EXPECT_EQ(type_name<int>(), "int");
  EXPECT_EQ(type_name<unsigned long>(), "long unsigned int");
}

template <typename T> void record_size(state& s) {
  s.skip(std::to_string(sizeof(T)));
}

TEST(registration, typed_benchmark_dispatches_on_the_type_axis) {
  auto& b = register_typed_benchmark<char, double>(
      "registration_test_typed", "T",
      [](state& s, auto type) { record_size<typename decltype(type)::type>(s); });
  ASSERT_EQ(b.axes().size(), 1u);
  EXPECT_EQ(b.axes()[0].kind(), axis_kind::type);
  EXPECT_EQ(b.axes()[0].strings(), (std::vector<std::string>{"char", "double"}));
  state with_double("registration_test_typed/T=double", "registration_test_typed",
                    {{"T", std::string("double")}}, {});
  b.function()(with_double);
  EXPECT_EQ(with_double.skip_reason(), "8");
  state with_char("registration_test_typed/T=char", "registration_test_typed",
                  {{"T", std::string("char")}}, {});
  b.function()(with_char);
  EXPECT_EQ(with_char.skip_reason(), "1");
  state unknown("registration_test_typed/T=bool", "registration_test_typed",
                {{"T", std::string("bool")}}, {});
  EXPECT_THROW(b.function()(unknown), invalid_argument);
}

} // namespace
} // namespace kerntime
