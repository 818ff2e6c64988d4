
BxJо@йjлfLаH│Eд2JнеО=▒хSKэEG"K