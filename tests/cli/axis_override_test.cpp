#include "cli/axis_override.hpp"

#include <gtest/gtest.h>

#include <string>

namespace kerntime::detail {
namespace {

axis int_axis() {
  return {"N", int_axis_values{{1, 2}}};
}
axis float_axis() {
  return {"alpha", float_axis_values{{0.5}}};
}
axis string_axis() {
  return {"mode", string_axis_values{{"fast", "slow"}}};
}
axis type_axis() {
  return {"T", type_axis_values{{"float", "int"}}};
}

std::string parse_error(std::string_view spec) {
  try {
    (void)parse_axis_override(spec);
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

std::string apply_error(const axis& a, std::string_view spec) {
  try {
    (void)apply_axis_override(a, parse_axis_override(spec));
  } catch (const invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(axis_override, single_value) {
  const auto o = parse_axis_override("N=1024");
  EXPECT_EQ(o.axis_name, "N");
  EXPECT_FALSE(o.power_of_two);
  EXPECT_EQ(o.values, std::vector<std::string>{"1024"});
  EXPECT_FALSE(o.range);
  EXPECT_EQ(apply_axis_override(int_axis(), o).ints(), std::vector<std::int64_t>{1024});
}

TEST(axis_override, list_with_spaces) {
  const auto o = parse_axis_override("N=[1024, 4096 ,8]");
  EXPECT_EQ(o.values, (std::vector<std::string>{"1024", "4096", "8"}));
  EXPECT_EQ(apply_axis_override(int_axis(), o).ints(), (std::vector<std::int64_t>{1024, 4096, 8}));
}

TEST(axis_override, int_range_is_inclusive) {
  const auto a = apply_axis_override(int_axis(), parse_axis_override("N=[1:10:3]"));
  EXPECT_EQ(a.ints(), (std::vector<std::int64_t>{1, 4, 7, 10}));
  const auto b = apply_axis_override(int_axis(), parse_axis_override("N=[3:5]"));
  EXPECT_EQ(b.ints(), (std::vector<std::int64_t>{3, 4, 5}));
}

TEST(axis_override, power_of_two_range_reads_exponents) {
  const auto o = parse_axis_override("N[pow2]=[10:20:2]");
  EXPECT_TRUE(o.power_of_two);
  const auto a = apply_axis_override(int_axis(), o);
  EXPECT_TRUE(a.power_of_two());
  EXPECT_EQ(a.ints(),
            (std::vector<std::int64_t>{1 << 10, 1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20}));
  EXPECT_EQ(apply_axis_override(int_axis(), parse_axis_override("N[pow2]=4")).ints(),
            std::vector<std::int64_t>{16});
  EXPECT_EQ(apply_axis_override(int_axis(), parse_axis_override("N[pow2]=[0,62]")).ints(),
            (std::vector<std::int64_t>{1, std::int64_t{1} << 62}));
}

TEST(axis_override, float_values_and_range) {
  EXPECT_EQ(apply_axis_override(float_axis(), parse_axis_override("alpha=[0.25,1e3]")).floats(),
            (std::vector<double>{0.25, 1000.0}));
  const auto a = apply_axis_override(float_axis(), parse_axis_override("alpha=[0:0.3:0.1]"));
  ASSERT_EQ(a.floats().size(), 4u); // 0, 0.1, 0.2, 0.3: the last value survives rounding
  EXPECT_DOUBLE_EQ(a.floats()[3], 0.3);
  // A one-value range at a magnitude where FIRST + STEP == FIRST ends (found by fuzz_axis_spec).
  EXPECT_EQ(
      apply_axis_override(float_axis(), parse_axis_override("alpha=[6e+185:6e+185:1]")).floats(),
      (std::vector<double>{6e185}));
}

TEST(axis_override, string_value_is_taken_whole) {
  EXPECT_EQ(apply_axis_override(string_axis(), parse_axis_override("mode=very fast")).strings(),
            std::vector<std::string>{"very fast"});
  EXPECT_EQ(apply_axis_override(string_axis(), parse_axis_override("mode=[slow,odd]")).strings(),
            (std::vector<std::string>{"slow", "odd"}));
}

TEST(axis_override, type_axis_keeps_known_types) {
  EXPECT_EQ(apply_axis_override(type_axis(), parse_axis_override("T=int")).strings(),
            std::vector<std::string>{"int"});
  EXPECT_NE(apply_error(type_axis(), "T=double")
                .find("type axis 'T' has no type 'double'; it "
                      "has float, int"),
            std::string::npos);
}

TEST(axis_override, every_malformed_form_names_the_problem) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"N", "missing '='"},
      {"=5", "the axis name is empty"},
      {"[pow2]=5", "the axis name is empty"},
      {"N=", "no value after '='"},
      {"N=[1,2", "missing ']'"},
      {"N=1,2]", "unbalanced brackets"},
      {"N=[]", "the list is empty"},
      {"N=[ ]", "the list is empty"},
      {"N=[1,,2]", "an empty value"},
      {"N=[1,]", "an empty value"},
      {"N=[[1]]", "nested brackets"},
      {"N=[1:2,3]", "mixes ',' and ':'"},
      {"N=[1:2:3:4]", "at most three parts"},
      {"N=[1::2]", "a part of the range is empty"},
      {"N=[:2]", "a part of the range is empty"},
      {"N[log]=[1:2]", "unknown flag '[log]'"},
      {"N]=1", "is not an axis name"},
  };
  for (const auto& [spec, problem] : cases) {
    const auto message = parse_error(spec);
    EXPECT_NE(message.find("malformed axis spec '-a " + spec + "'"), std::string::npos) << spec;
    EXPECT_NE(message.find(problem), std::string::npos) << spec << ": " << message;
    EXPECT_NE(message.find("NAME[pow2]=[FIRST:LAST:STEP]"), std::string::npos) << spec;
    EXPECT_EQ(message.find('\n'), std::string::npos) << spec;
  }
}

TEST(axis_override, values_that_do_not_fit_the_axis) {
  EXPECT_NE(
      apply_error(int_axis(), "N=abc").find("'abc' is not an integer (axis 'N' is an int axis)"),
      std::string::npos);
  EXPECT_NE(apply_error(int_axis(), "N=1.5").find("'1.5' is not an integer"), std::string::npos);
  EXPECT_NE(apply_error(int_axis(), "N=99999999999999999999").find("is not an integer"),
            std::string::npos);
  EXPECT_NE(apply_error(int_axis(), "N=[1:10:0]").find("step must be at least 1"),
            std::string::npos);
  EXPECT_NE(apply_error(int_axis(), "N=[1:10:-2]").find("step must be at least 1"),
            std::string::npos);
  EXPECT_NE(apply_error(int_axis(), "N=[10:1]").find("first value 10 is above its last value 1"),
            std::string::npos);
  EXPECT_NE(apply_error(int_axis(), "N=[0:100000000]").find("more than 10000 values"),
            std::string::npos);
  EXPECT_NE(apply_error(int_axis(), "N[pow2]=63").find("exponent 63 is outside 0..62"),
            std::string::npos);
  EXPECT_NE(apply_error(int_axis(), "N[pow2]=-1").find("exponent -1 is outside 0..62"),
            std::string::npos);
  EXPECT_NE(apply_error(float_axis(), "alpha=nan").find("is not a finite number"),
            std::string::npos);
  EXPECT_NE(apply_error(float_axis(), "alpha[pow2]=3")
                .find("[pow2] applies to int axes, and 'alpha' is a float axis"),
            std::string::npos);
  EXPECT_NE(apply_error(float_axis(), "alpha=[0:1:0]").find("step must be above 0"),
            std::string::npos);
  // A step below the precision of a double near the values would repeat them.
  EXPECT_NE(apply_error(float_axis(), "alpha=[100000000000000000:100000000000000032:1]")
                .find("below the precision of a double near 1e+17"),
            std::string::npos);
  EXPECT_NE(apply_error(string_axis(), "mode=[a:b]").find("a range applies to int and float"),
            std::string::npos);
}

} // namespace
} // namespace kerntime::detail
