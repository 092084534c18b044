module 0clocale

go 1.26.0
