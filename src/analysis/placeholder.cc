namespace neardup {}
